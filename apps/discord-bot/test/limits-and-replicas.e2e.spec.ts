import { randomBytes } from "node:crypto";
import type { Server } from "node:http";
import { GenerationStatus } from "@imagehub/domain";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeServer } from "../../../tests/support/close-server.js";
import { uniqueName } from "../../../tests/support/environment.js";
import { startHttpProxy } from "../../../tests/support/http-proxy.js";
import { readJson } from "../../../tests/support/json.js";
import { freePort } from "../../../tests/support/start-command.mjs";
import { startTestApi, type TestApi } from "../../../tests/support/test-api.js";
import { until } from "../../../tests/support/until.js";
import { type BotHarness, startBotHarness } from "./support/discord-bot-harness.js";
import type { FakeMessage, Member } from "./support/fake-discord.js";
import {
  ADMIN,
  WEBHOOKS_AT_ONCE as API_ENV,
  answerWithText,
  buttonId,
  forgedDelivery,
  MEMBER,
  STRING,
  SUBCOMMAND,
  statusOf,
} from "./support/fixtures.js";

/** The bot's limits (cooldown, running places, a slow imagehub) and its replicas. */
describe("the Discord bot's limits and replicas", () => {
  let api: TestApi;
  let apiKey: string;

  beforeAll(async () => {
    api = await startTestApi({ env: API_ENV });
    ({ apiKey } = await api.createAccount({ credits: { f_images: 10, f_images_print: 20 } }));
  });

  afterAll(async () => {
    await api?.close();
  });

  describe("with the bot's default key and tight limits", () => {
    let limited: BotHarness;

    beforeAll(async () => {
      limited = await startBotHarness(api.baseUrl, {
        IMAGEHUB_API_KEY: apiKey,
        BOT_DEFAULT_KEY_TEAMS: "900000000000000010",
        BOT_USER_COOLDOWN_SECONDS: "3600",
        BOT_MAX_RUNNING_PER_TEAM: "1",
      });
    });

    afterAll(async () => {
      await limited?.close();
    });

    const run = (member: Member, prompt: string) =>
      limited.fake.runCommand("generate", [{ name: "prompt", type: STRING, value: prompt }], member);
    const answerOf = async (interactionId: string) =>
      (await answerWithText(limited.fake, interactionId)).content;

    it("refuses a webhook delivery whose signature is wrong", async () => {
      const response = await forgedDelivery(limited.bot.core.connections.webhookUrl("default"));
      expect(response.status).toBe(401);
    });

    let windmill: FakeMessage;

    it("serves a server that never connected, with the default key's own webhook", async () => {
      const { webhooks } = await readJson(await api.request("/v1/api-keys/webhooks", { apiKey }));
      expect(webhooks.map((webhook: { url: string }) => webhook.url)).toContain(
        limited.bot.core.connections.webhookUrl("default"),
      );
      const started = run(ADMIN, "a windmill");
      await until(() => statusOf(limited.fake.answerTo(started)) === "Done", { what: "the generation" });
      windmill = limited.fake.answerTo(started) as FakeMessage;
    });

    it("holds Again to the clicker's cooldown, like /generate", async () => {
      const click = limited.fake.clickButton(windmill.id, buttonId(windmill, "Again"), ADMIN);
      expect(await answerOf(click)).toMatch(
        /^⚠️ You can start another generation in \d+ s \(one every 3600 s/,
      );
      expect(limited.fake.lastAnswerTo(click)?.flags).toBe(64);
      // The public answer the click was deferred with is gone: one status message in the channel.
      expect(limited.fake.answerTo(click)).toBeUndefined();
    });

    it("holds Retry to the clicker's cooldown, like /generate", async () => {
      const someone: Member = { id: "100000000000000005", username: "someone" };
      const started = run(someone, "a gore scene in a windmill");
      await until(() => /^Failed/.test(statusOf(limited.fake.answerTo(started)) ?? ""), {
        what: "the failure",
      });
      const failed = limited.fake.answerTo(started) as FakeMessage;
      const click = limited.fake.clickButton(failed.id, buttonId(failed, "Retry"), someone);
      expect(await answerOf(click)).toMatch(
        /^⚠️ You can start another generation in \d+ s \(one every 3600 s/,
      );
      expect(limited.fake.lastAnswerTo(click)?.flags).toBe(64);
      expect(statusOf(limited.fake.messages.get(failed.id))).toMatch(/^Failed/);
    });

    it("explains a person's cooldown, and the team's limit of running generations", async () => {
      expect(await answerOf(run(ADMIN, "a second windmill"))).toMatch(
        /^⚠️ You can start another generation in \d+ s \(one every 3600 s per person\)/,
      );
      run(MEMBER, "a slow river");
      // Imagehub's word, not the message's: edits wait on the channel's budget, the generation does not.
      const isRiverRunning = async () => {
        const { prints } = await readJson(await api.request("/v1/image-generations?limit=100", { apiKey }));
        return prints.some(
          (print: { prompt: string; status: number }) =>
            print.prompt === "a slow river" && print.status < GenerationStatus.Done,
        );
      };
      await until(isRiverRunning, { what: "the first generation to be queued or running" });
      const other: Member = { id: "100000000000000003", username: "other" };
      expect(await answerOf(run(other, "a third windmill"))).toMatch(
        /already queued or running \(at most 1 at once\)/,
      );
    });
  });

  describe("20 people running /generate at the same instant, with a limit of 3 running", () => {
    let crowd: BotHarness;
    let teamKey: string;
    const members = Array.from({ length: 20 }, (_, index) => ({
      id: String(200000000000000000n + BigInt(index)),
      username: `member${index}`,
    }));
    const outcomeOf = (interactionId: string) => {
      const answer = crowd.fake.lastAnswerTo(interactionId);
      if (answer?.flags === 64) return answer.content;
      return statusOf(crowd.fake.answerTo(interactionId));
    };

    beforeAll(async () => {
      ({ apiKey: teamKey } = await api.createAccount({ credits: { f_images_print: 50, f_images: 5 } }));
      crowd = await startBotHarness(api.baseUrl, {
        BOT_DATABASE_URL: api.database.url,
        IMAGEHUB_API_KEY: teamKey,
        BOT_DEFAULT_KEY_TEAMS: "900000000000000010",
        BOT_MAX_RUNNING_PER_TEAM: "3",
      });
    });
    afterAll(async () => {
      await crowd?.close();
    });

    it("starts exactly 3; the 17 others hear the limit; the places are free again once they end", async () => {
      const earlier = crowd.fake.runCommand(
        "generate",
        [{ name: "prompt", type: STRING, value: "a dune" }],
        ADMIN,
      );
      await until(() => statusOf(crowd.fake.answerTo(earlier)) === "Done", { what: "an earlier generation" });
      const done = crowd.fake.answerTo(earlier) as FakeMessage;

      // The 3 stay queued while the 20 commands are answered: a generation that ended meanwhile would rightly
      // free its place for one of the 17.
      const releaseGenerations = await api.holdGenerations();
      let started: string[];
      try {
        // Each command checks and takes a place as it arrives, concurrently with the others (shared PostgreSQL state).
        const interactions = members.map((member) =>
          crowd.fake.runCommand(
            "generate",
            [{ name: "prompt", type: STRING, value: `a dune at ${member.username}` }],
            member,
          ),
        );
        await until(() => interactions.every((interaction) => outcomeOf(interaction) !== undefined), {
          what: "an answer to every command",
        });
        started = interactions.filter((interaction) => crowd.fake.answerTo(interaction)?.flags === 0);
        const refusals = interactions.map(outcomeOf).filter((outcome) => outcome?.startsWith("⚠️"));
        expect(started).toHaveLength(3);
        expect(refusals).toHaveLength(17);
        for (const refusal of refusals)
          expect(refusal).toMatch(/already queued or running \(at most 3 at once\)/);
        const { filteredResults } = await readJson(
          await api.request("/v1/image-generations", { apiKey: teamKey }),
        );
        expect(filteredResults).toBe(4);
      } finally {
        await releaseGenerations();
      }

      await until(
        () => started.every((interaction) => statusOf(crowd.fake.answerTo(interaction)) === "Done"),
        { what: "the 3 to finish" },
      );
      await until(async () => (await crowd.bot.core.usage.runningCount(crowd.fake.guildId)) === 0, {
        what: "their places given back",
      });
      const again = crowd.fake.clickButton(done.id, buttonId(done, "Again"), ADMIN);
      await until(
        () => crowd.fake.answerTo(again)?.id !== done.id && statusOf(crowd.fake.answerTo(again)) === "Done",
        { what: "Again" },
      );
    }, 120_000);
  });

  it("defers /generate before calling imagehub, so a slow imagehub does not miss Discord's deadline", async () => {
    const slowImagehub = await startHttpProxy(() => Number(new URL(api.baseUrl).port), { delayMs: 350 });
    const { apiKey: teamKey } = await api.createAccount();
    const slow = await startBotHarness(slowImagehub.url, {
      IMAGEHUB_API_KEY: teamKey,
      BOT_DEFAULT_KEY_TEAMS: "900000000000000010",
    });
    try {
      slow.fake.interactionDeadlineMs = 300;
      const interaction = slow.fake.runCommand(
        "generate",
        [{ name: "prompt", type: STRING, value: "a windmill in the rain" }],
        ADMIN,
      );
      await until(() => /^(Generating|Done)/.test(statusOf(slow.fake.answerTo(interaction)) ?? ""), {
        what: "the generation to run",
      });
      expect(
        slow.fake.calls.filter((call) => call.path.includes("/callback")).map((call) => call.body?.type),
      ).toEqual([5]);
    } finally {
      await slow.close();
      await closeServer(slowImagehub.server);
    }
  });

  describe("two replicas behind one address, sharing their state in PostgreSQL", () => {
    let one: BotHarness;
    let two: BotHarness;
    let proxy: Server;
    const served = [0, 0];

    beforeAll(async () => {
      const proxyPort = await freePort();
      const shared = {
        BOT_DATABASE_URL: api.database.url,
        BOT_DATABASE_SCHEMA: uniqueName("discord_replicas"),
        BOT_ENCRYPTION_KEY: randomBytes(32).toString("base64"),
        BOT_PUBLIC_URL: `http://127.0.0.1:${proxyPort}`,
      };
      one = await startBotHarness(api.baseUrl, shared);
      two = await startBotHarness(api.baseUrl, shared, { fake: one.fake });
      // A load balancer: imagehub's deliveries go to each replica in turn.
      ({ server: proxy } = await startHttpProxy(
        () => {
          const replica = (served[0] ?? 0) <= (served[1] ?? 0) ? 0 : 1;
          served[replica] = (served[replica] ?? 0) + 1;
          return (replica === 0 ? one : two).bot.port;
        },
        { port: proxyPort },
      ));
    });
    afterAll(async () => {
      await two?.close();
      await one?.close();
      if (proxy) await closeServer(proxy);
    });

    it("shows every step once and in order, whichever replica received it", async () => {
      const { apiKey: teamKey } = await api.createAccount();
      const connecting = one.fake.runCommand(
        "imagehub",
        [{ name: "connect", type: SUBCOMMAND, options: [{ name: "key", type: STRING, value: teamKey }] }],
        ADMIN,
      );
      await until(() => /^Connected/.test(one.fake.answerTo(connecting)?.content ?? ""), {
        what: "connected",
      });

      const interaction = one.fake.runCommand(
        "generate",
        [{ name: "prompt", type: STRING, value: "a lighthouse at night" }],
        ADMIN,
      );
      await until(() => statusOf(one.fake.answerTo(interaction)) === "Done", { what: "Done" });

      expect(served.every((count) => count > 0)).toBe(true);
      const history = one.fake.answerTo(interaction)?.statusHistory ?? [];
      expect(new Set(history).size).toBe(history.length);
      // Both replicas' gateway sessions received each interaction; one answered it, once.
      const callbacks = one.fake.calls.filter((call) => call.path.endsWith("/callback"));
      expect(callbacks.map((call) => call.status)).toEqual([204, 204]);
      const { webhooks } = await readJson(await api.request("/v1/api-keys/webhooks", { apiKey: teamKey }));
      expect(webhooks.map((webhook: { disabled: boolean }) => webhook.disabled)).toEqual([false]);
    });
  });
});
