import { encodeAction } from "@imagehub/chat-core";
import { describe, expect, it } from "vitest";
import { BUY_ACTION_ID, RETRY_ACTION_ID } from "./block-actions.js";

describe("action ids", () => {
  it("match the Buy buttons chat-core makes, and only those", () => {
    const buy = encodeAction({ kind: "buy", imageId: "img-1", imageNumber: 3 });
    const retry = encodeAction({ kind: "retry", generationId: "gen-1" });

    expect([BUY_ACTION_ID.test(buy), BUY_ACTION_ID.test(retry)]).toEqual([true, false]);
    expect([RETRY_ACTION_ID.test(retry), RETRY_ACTION_ID.test(buy)]).toEqual([true, false]);
  });
});
