import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startBotHarness } from "../../apps/discord-bot/test/support/discord-bot-harness.js";
import { buttonsOf, STRING, statusOf } from "../../apps/discord-bot/test/support/fixtures.js";
import { DONE_BUTTONS } from "../../packages/chat-core/test/support/done-buttons.js";
import { startTestApi, type TestApi } from "../../tests/support/test-api.js";
import { until } from "../../tests/support/until.js";

/**
 * 20 people run /generate at once in one Discord channel whose edit budget is Discord's observed one
 * (5 edits per 5 s per channel, 429 with retry_after beyond): every message must end Done with its grid
 * and buttons, never going backwards, and each requester hears of it once; prints the edits sent per
 * generation, the completion notices posted and the 429s sat out.
 */
describe("20 generations at once in one channel", () => {
  let api: TestApi;

  beforeAll(async () => {
    api = await startTestApi({
      env: { WEBHOOK_ALLOW_HTTP: "true", WEBHOOK_ALLOW_PRIVATE: "true", WEBHOOK_RELAY_INTERVAL_MS: "20" },
    });
  });
  afterAll(async () => {
    await api?.close();
  });

  it("finishes every message correctly within the channel's edit budget", async () => {
    const { apiKey } = await api.createAccount({ credits: { f_images: 0, f_images_print: 25 } });
    const busy = await startBotHarness(api.baseUrl, {
      IMAGEHUB_API_KEY: apiKey,
      BOT_DEFAULT_KEY_TEAMS: "900000000000000010",
      BOT_MAX_RUNNING_PER_TEAM: "25",
      BOT_DATABASE_URL: api.database.url,
    });
    try {
      busy.fake.editBudget = { limit: 5, windowMs: 5000 };
      const interactions = Array.from({ length: 20 }, (_, index) =>
        busy.fake.runCommand(
          "generate",
          [{ name: "prompt", type: STRING, value: `a harbour, take ${index + 1}` }],
          { id: String(200000000000000000n + BigInt(index)), username: `person${index}` },
        ),
      );
      const messages = () => interactions.map((interaction) => busy.fake.answerTo(interaction));
      const started = performance.now();
      await until(() => messages().every((message) => statusOf(message) === "Done"), {
        what: "every generation Done",
        timeoutMs: 240_000,
      });
      const seconds = (performance.now() - started) / 1000;

      for (const message of messages()) {
        expect(message?.attachments.map((attachment) => attachment.filename)).toEqual(["images.jpg"]);
        expect(buttonsOf(message)).toEqual(DONE_BUTTONS);
        const steps = (message?.statusHistory ?? []).map((status) =>
          status === "Done" ? 9 : Number(/(\d)\/4/.exec(status)?.[1] ?? -1),
        );
        expect(steps).toEqual([...steps].sort((a, b) => a - b));
      }
      const noticesPosted = () =>
        [...busy.fake.messages.values()].filter((message) => message.content.includes(" are ready: ")).length;
      await until(() => noticesPosted() >= 20, { what: "a notice per generation" });
      const noticeCount = noticesPosted();
      const edits = [...busy.bot.core.updates.editsSent.values()];
      const rateLimited = [...busy.fake.rateLimited.values()].reduce((sum, count) => sum + count, 0);
      const mean = edits.reduce((sum, count) => sum + count, 0) / edits.length;
      console.log(
        `20 generations in one channel, all Done in ${seconds.toFixed(1)} s: edits sent per generation min ${Math.min(...edits)}, mean ${mean.toFixed(2)}, max ${Math.max(...edits)}; completion notices posted: ${noticeCount}; 429s answered by the fake and sat out: ${rateLimited}`,
      );
      expect(edits).toHaveLength(20);
      expect(noticeCount).toBe(20);
    } finally {
      await busy.close();
    }
  }, 300_000);
});
