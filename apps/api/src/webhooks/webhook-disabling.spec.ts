import { describe, expect, it } from "vitest";
import { reasonToDisable } from "./webhook-disabling.js";

const DAY_SECONDS = 24 * 3600;
const now = Date.parse("2026-03-01T12:00:00Z");

describe("reasonToDisable", () => {
  it("disables at once an endpoint that answers 410 Gone", () => {
    expect(reasonToDisable(410, new Date(now), DAY_SECONDS, now)).toBe("the endpoint answered 410 Gone");
  });

  it("keeps delivering while the run of failures is shorter than the period allowed", () => {
    expect(reasonToDisable(500, new Date(now - 1000), DAY_SECONDS, now)).toBeUndefined();
    expect(reasonToDisable(undefined, new Date(now - 1000), DAY_SECONDS, now)).toBeUndefined();
  });

  it("disables once no delivery has succeeded for the whole period", () => {
    const failingSince = new Date(now - DAY_SECONDS * 1000);
    expect(reasonToDisable(503, failingSince, DAY_SECONDS, now)).toBe(
      "no delivery succeeded since 2026-02-28T12:00:00.000Z",
    );
  });
});
