import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ImagehubClient } from "@imagehub/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApi, type TestApi } from "../../../tests/support/test-api.js";
import { JsonFileStore } from "../src/json-file-store.js";
import { SecretBox } from "../src/secret-box.js";
import { type TeamConnectionRecord, TeamConnections } from "../src/team-connections.js";

/** TeamConnections against the real API: what imagehub holds, and what the bot's record says meanwhile. */
describe("TeamConnections", () => {
  let api: TestApi;
  let folder: string;

  beforeAll(async () => {
    api = await startTestApi({ env: { WEBHOOK_ALLOW_HTTP: "true", WEBHOOK_ALLOW_PRIVATE: "true" } });
    folder = await mkdtemp(join(tmpdir(), "connections-"));
  });
  afterAll(async () => {
    await api?.close();
    await rm(folder, { recursive: true, force: true });
  });

  it("records the new webhook before removing the old one when a team connects again", async () => {
    const records = (await JsonFileStore.open(join(folder, "state.json"))).collection<TeamConnectionRecord>(
      "teams",
    );
    // The team's record is replaced, never deleted: a delivery meanwhile finding no record would be
    // answered 410, and imagehub would disable the webhook it came from.
    const recordsDeleted: string[] = [];
    const connections = new TeamConnections({
      platform: "slack",
      records: {
        ...records,
        delete: async (key) => {
          recordsDeleted.push(key);
          await records.delete(key);
        },
      },
      secretBox: new SecretBox(randomBytes(32).toString("base64")),
      apiBaseUrl: api.baseUrl,
      publicUrl: "http://127.0.0.1:9",
    });
    const { apiKey } = await api.createAccount();
    const imagehub = new ImagehubClient({ baseUrl: api.baseUrl, apiKey });
    await connections.connect("T1", apiKey, "U1");
    const [first] = (await imagehub.webhooks.list()).webhooks;

    await connections.connect("T1", apiKey, "U1");

    const { webhooks } = await imagehub.webhooks.list();
    expect(webhooks.map((webhook) => webhook.id)).toEqual([(await records.get("T1"))?.webhookId]);
    expect(webhooks[0]?.id).not.toBe(first?.id);
    expect(recordsDeleted).toEqual([]);
  });
});
