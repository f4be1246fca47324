import { loadavg } from "node:os";
import { decodeAction } from "@imagehub/chat-core";
import { ImagehubClient } from "@imagehub/client";
import type { ImageGeneration } from "@imagehub/domain";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type {
  FakeMessage as DiscordMessage,
  Member,
} from "../../apps/discord-bot/test/support/fake-discord.js";
import {
  ADMIN as DISCORD_ADMIN,
  buttonsOf as discordButtonsOf,
  noticesOf as discordNoticesOf,
  STRING,
  SUBCOMMAND,
  statusOf,
  WEBHOOKS_AT_ONCE,
} from "../../apps/discord-bot/test/support/fixtures.js";
import type {
  SlackBlock,
  FakeMessage as SlackMessage,
} from "../../apps/slack-bot/test/support/fake-slack.js";
import { buttonsOf as slackButtonsOf, statusesOf } from "../../apps/slack-bot/test/support/imagehub.js";
import { DONE_BUTTONS } from "../../packages/chat-core/test/support/done-buttons.js";
import { until } from "../../tests/support/until.js";
import { startDiscordReplicas, startSlackReplicas } from "./bot-replicas.js";
import { ImagehubProcesses } from "./imagehub-processes.js";

/** SOAK_GENERATIONS scales the run down for a quick try. */
const GENERATIONS = Number(process.env.SOAK_GENERATIONS ?? 200);
/** Commands sent together; the next wave waits until each of them has its status message. */
const WAVE = 10;
const PEOPLE_PER_TEAM = 12;
const SLACK_TEAM = "T0SOAK";
const SLACK_ADMIN = "U0SOAKADMIN";
const SLACK_CHANNELS = ["C0SOAK1", "C0SOAK2", "C0SOAK3", "C0SOAK4"];
/** One request in this many of the platforms' message routes answers 503. */
const SERVER_ERROR_EVERY = 7;
/** One Slack command in this many is followed by one of Slack's failed downloads of an image link. */
const FAILED_DOWNLOAD_EVERY = 5;
const ALL_DONE_TIMEOUT_MS = 25 * 60_000;

type Platform = "discord" | "slack";

/** One `/generate` of the soak: who asked, where, for what prompt (unique: it names the generation). */
interface Requested {
  platform: Platform;
  prompt: string;
  channelId: string;
  userId: string;
  /** Discord: the interaction whose answer is the status message. */
  interactionId?: string;
}

/** An edit the platform took, with what it showed: the prompt and the generations its buttons act on. */
interface LandedEdit {
  messageKey: string;
  prompt: string | undefined;
  buttonGenerations: string[];
}

const messageKey = (platform: Platform, channelId: string, messageId: string) =>
  `${platform}/${channelId}/${messageId}`;

const generationsOfButtons = (ids: string[]) =>
  ids.flatMap((id) => {
    const action = decodeAction(id);
    return action && "generationId" in action && action.generationId !== undefined
      ? [action.generationId]
      : [];
  });

const slackHeaderOf = (blocks: SlackBlock[] | undefined) =>
  blocks?.[0]?.type === "header" ? blocks[0].text?.text : undefined;

const sameList = (a: string[], b: string[]) => a.length === b.length && a.every((item, i) => item === b[i]);

const seconds = (ms: number) => (ms / 1000).toFixed(1);

/**
 * The chat bots' soak: two replicas of each bot sharing their PostgreSQL state, three teams (two
 * Discord servers, one Slack workspace) connected to one imagehub account, `/generate` 200 times over people
 * and channels, while the platforms answer 429 past their budgets, 503 now and then, Slack fails to download
 * image links (invalid_blocks), and the API process is down for a while mid-run (its worker goes on). Every
 * message must end Done with its buttons, each requester be told once, no message be edited with another
 * generation's state, nothing be posted twice. Prints the figures bench/RESULTS.md keeps.
 */
describe(`the chat bots' soak: ${GENERATIONS} generations`, () => {
  let imagehub: ImagehubProcesses;
  let discord: Awaited<ReturnType<typeof startDiscordReplicas>>;
  let slack: Awaited<ReturnType<typeof startSlackReplicas>>;
  let apiKey: string;

  beforeAll(async () => {
    // Two generations at a time, 1.6 s each: the commands outpace the worker, so that many generations run
    // through the API's outage.
    imagehub = await ImagehubProcesses.start({
      ...WEBHOOKS_AT_ONCE,
      PROCEDURAL_IMAGE_DELAY_MS: "400",
      GENERATION_CONCURRENCY: "2",
    });
    apiKey = await imagehub.createAccount("soak@example.test", GENERATIONS);
    const limits = { BOT_MAX_RUNNING_PER_TEAM: String(GENERATIONS) };
    discord = await startDiscordReplicas(imagehub.baseUrl, imagehub.database.url, limits);
    slack = await startSlackReplicas(imagehub.baseUrl, imagehub.database.url, SLACK_TEAM, {
      ...limits,
      // Slack fetches the grid's link itself, and sometimes fails to.
      SLACK_IMAGES_PUBLIC: "true",
    });
  }, 180_000);

  afterAll(async () => {
    await slack?.close();
    await discord?.close();
    await imagehub?.close();
  });

  it(
    "ends every message Done with its buttons, tells each requester once, edits each with its own generation, posts nothing twice",
    async () => {
      const loadAtStart = loadavg();
      await connectTeams();
      const requests = plan();
      discord.fake.serverErrorEvery = SERVER_ERROR_EVERY;
      slack.fake.serverErrorEvery = SERVER_ERROR_EVERY;

      const started = performance.now();
      const half = Math.ceil(requests.length / 2);
      await sendInWaves(requests.slice(0, half));

      // The API goes down while the first half runs, and stays down until the worker has ended every one of
      // them: their last deliveries reach the bots while the images they show cannot be read.
      const outageStarted = performance.now();
      const unfinishedAtOutage = await imagehub.unfinishedGenerations();
      await imagehub.stopApi();
      await until(async () => (await imagehub.unfinishedGenerations()) === 0, {
        what: "the worker to end the first half's generations while the API is down",
        timeoutMs: 600_000,
      });
      await imagehub.startApi();
      const apiBack = performance.now();
      const caughtUp = requests.slice(0, half);
      const recovery = until(() => caughtUp.every(isDone), {
        what: "the messages of the generations ended during the outage to show Done",
        timeoutMs: ALL_DONE_TIMEOUT_MS,
      }).then(
        () => performance.now() - apiBack,
        () => undefined,
      );

      await sendInWaves(requests.slice(half));
      const allDone = await until(() => requests.every(isDone), {
        what: "every message Done with its buttons",
        timeoutMs: ALL_DONE_TIMEOUT_MS,
      }).then(
        () => performance.now() - started,
        () => undefined,
      );
      const recoveryMs = await recovery;
      // The notices follow the last edit: give them the time the queue takes.
      await until(() => requests.every((request) => noticesOf(request).length >= 1), {
        what: "a notice per generation",
        timeoutMs: 120_000,
      }).catch(() => undefined);
      await Promise.all(
        [...discord.replicas, ...slack.replicas].map(updatesOf).map((updates) => updates.settled()),
      );

      const generations = await generationsOfAccount();
      const edits = landedEdits();
      const foreignEdits = editsOfAnotherGeneration(edits, generations);
      const notDone = requests.filter((request) => !isDone(request)).map(describeState);
      const noticeCounts = requests.map((request) => noticesOf(request).length);
      const postedTwice = requests
        .filter((request) => statusMessagesOf(request).length !== 1)
        .map(describeState);
      const createdTwice = requests
        .filter(
          (request) => generations.filter((generation) => generation.prompt === request.prompt).length !== 1,
        )
        .map((request) => request.prompt);
      const editsPerGeneration = requests.map(
        (request) => edits.filter((edit) => edit.messageKey === keyOfStatusMessage(request)).length,
      );
      const imageRefusals = slack.fake.refusedLayouts.filter((refusal) =>
        refusal.errors.some((error) => error.startsWith("downloading image failed")),
      ).length;
      const uploadedInstead = requests.filter((request) => {
        const [message] = statusMessagesOf(request);
        return message !== undefined && "ts" in message && message.blocks.some((block) => block.slack_file);
      }).length;
      const discord429 = [...discord.fake.rateLimited.values()].reduce((sum, count) => sum + count, 0);
      const slack429 = slack.fake.rateLimitedCalls();
      const mean = editsPerGeneration.reduce((sum, count) => sum + count, 0) / editsPerGeneration.length;
      const loadAtEnd = loadavg();

      const rows: [string, string][] = [
        ["generations (Discord + Slack)", `${requests.length} (${countOf("discord")} + ${countOf("slack")})`],
        ["wall time to all Done", allDone === undefined ? "not all Done" : `${seconds(allDone)} s`],
        [
          "edits landed per generation (min / mean / max)",
          `${Math.min(...editsPerGeneration)} / ${mean.toFixed(2)} / ${Math.max(...editsPerGeneration)}`,
        ],
        ["429s answered and sat out (Discord / Slack)", `${discord429} / ${slack429}`],
        [
          "5xx answered and sat out (Discord / Slack)",
          `${discord.fake.serverErrors} / ${slack.fake.serverErrors}`,
        ],
        [
          "invalid_blocks (image download failed) / messages ending on the uploaded grid instead",
          `${imageRefusals} / ${uploadedInstead}`,
        ],
        [
          "completion notices (total; per generation min / max)",
          `${noticeCounts.reduce((sum, count) => sum + count, 0)}; ${Math.min(...noticeCounts)} / ${Math.max(...noticeCounts)}`,
        ],
        [
          "status messages posted twice / generations created twice",
          `${postedTwice.length} / ${createdTwice.length}`,
        ],
        ["edits showing another generation", String(foreignEdits.length)],
        [
          "API outage: down for / generations running when it went down",
          `${seconds(apiBack - outageStarted)} s / ${unfinishedAtOutage}`,
        ],
        [
          "recovery: API back to every message of the first half Done",
          recoveryMs === undefined ? "not recovered" : `${seconds(recoveryMs)} s`,
        ],
        [
          "load average (1 min) at start / end",
          `${loadAtStart[0]?.toFixed(2)} / ${loadAtEnd[0]?.toFixed(2)}`,
        ],
      ];
      console.log(
        ["| Figure | Value |", "|---|---|", ...rows.map(([name, value]) => `| ${name} | ${value} |`)].join(
          "\n",
        ),
      );

      expect(notDone).toEqual([]);
      expect(noticeCounts.filter((count) => count !== 1)).toEqual([]);
      expect(foreignEdits).toEqual([]);
      expect(postedTwice).toEqual([]);
      expect(createdTwice).toEqual([]);

      function countOf(platform: Platform) {
        return requests.filter((request) => request.platform === platform).length;
      }
    },
    ALL_DONE_TIMEOUT_MS + 20 * 60_000,
  );

  /** Each team's admin connects it with the one account's key: three webhooks on one account. */
  async function connectTeams() {
    for (const channelId of [discord.fake.channelId, discord.fake.otherGuildChannelId]) {
      const connecting = discord.fake.runCommand(
        "imagehub",
        [{ name: "connect", type: SUBCOMMAND, options: [{ name: "key", type: STRING, value: apiKey }] }],
        DISCORD_ADMIN,
        channelId,
      );
      await until(() => /^Connected/.test(discord.fake.answerTo(connecting)?.content ?? ""), {
        what: `the Discord server of ${channelId} connected`,
      });
    }
    slack.fake.addUser({ id: SLACK_ADMIN, isAdmin: true });
    const { responseUrl } = await slack.replicas[0].sender.command(
      { teamId: SLACK_TEAM, channelId: SLACK_CHANNELS[0] as string, userId: SLACK_ADMIN },
      "/imagehub",
      `connect ${apiKey}`,
    );
    await until(
      () => /now uses the imagehub account/.test(slack.fake.responsesTo(responseUrl)[0]?.body.text ?? ""),
      { what: "the Slack workspace connected" },
    );
  }

  /** Every other generation on each platform; people and channels in turn. */
  function plan(): Requested[] {
    const discordChannels = [
      discord.fake.channelId,
      discord.fake.otherChannelId,
      discord.fake.otherGuildChannelId,
    ];
    return Array.from({ length: GENERATIONS }, (_, index) => {
      const platform: Platform = index % 2 === 0 ? "discord" : "slack";
      const turn = Math.floor(index / 2);
      const person = turn % PEOPLE_PER_TEAM;
      return {
        platform,
        prompt: `a harbour at dawn, take ${index + 1}`,
        channelId:
          platform === "discord"
            ? (discordChannels[turn % discordChannels.length] as string)
            : (SLACK_CHANNELS[turn % SLACK_CHANNELS.length] as string),
        userId: platform === "discord" ? String(300000000000000000n + BigInt(person)) : `U0SOAK${person}`,
      };
    });
  }

  async function sendInWaves(requests: Requested[]) {
    for (let start = 0; start < requests.length; start += WAVE) {
      const wave = requests.slice(start, start + WAVE);
      await Promise.all(wave.map(send));
      await until(() => wave.every((request) => statusMessagesOf(request).length > 0), {
        what: `the status messages of "${wave[0]?.prompt}" and the ${wave.length - 1} after it`,
        timeoutMs: 120_000,
      });
    }
  }

  async function send(request: Requested) {
    const turn = Number(/take (\d+)$/.exec(request.prompt)?.[1]);
    if (request.platform === "discord") {
      const member: Member = { id: request.userId, username: `person${request.userId.slice(-2)}` };
      request.interactionId = discord.fake.runCommand(
        "generate",
        [{ name: "prompt", type: STRING, value: request.prompt }],
        member,
        request.channelId,
      );
      return;
    }
    slack.fake.addUser({ id: request.userId });
    if (turn % FAILED_DOWNLOAD_EVERY === 0) slack.fake.failingImageDownloads += 1;
    const replica = turn % 2 === 0 ? slack.replicas[0] : slack.replicas[1];
    const { response } = await replica.sender.command(
      { teamId: SLACK_TEAM, channelId: request.channelId, userId: request.userId },
      "/generate",
      request.prompt,
    );
    if (!response.ok) throw new Error(`/generate "${request.prompt}" answered ${response.status}`);
  }

  /** The status messages posted for a request: one, whatever happened (deleted ones count too). */
  function statusMessagesOf(request: Requested): (DiscordMessage | SlackMessage)[] {
    if (request.platform === "discord") {
      return [...discord.fake.messages.values()].filter(
        (message) => message.embeds[0]?.description === request.prompt && statusOf(message) !== undefined,
      );
    }
    return [...slack.fake.messages.values()].filter(
      (message) => slackHeaderOf(message.versions[0]?.blocks) === request.prompt,
    );
  }

  function keyOfStatusMessage(request: Requested): string {
    const [message] = statusMessagesOf(request);
    if (!message) return "";
    return "ts" in message
      ? messageKey("slack", message.channel, message.ts)
      : messageKey("discord", message.channel_id, message.id);
  }

  function isDone(request: Requested): boolean {
    const [message] = statusMessagesOf(request);
    if (!message) return false;
    if ("ts" in message) {
      return (
        !message.isDeleted &&
        statusesOf(message).at(-1) === "Done" &&
        sameList(
          slackButtonsOf(message).map((button) => button.label),
          DONE_BUTTONS,
        )
      );
    }
    return statusOf(message) === "Done" && sameList(discordButtonsOf(message), DONE_BUTTONS);
  }

  /** What a request's message shows, for a failure's evidence. */
  function describeState(request: Requested): string {
    const messages = statusMessagesOf(request);
    const shown = messages.map((message) =>
      "ts" in message
        ? `${message.isDeleted ? "deleted " : ""}[${statusesOf(message).join(" > ")}] buttons ${slackButtonsOf(message).length}`
        : `[${message.statusHistory.join(" > ")}] buttons ${discordButtonsOf(message).length}`,
    );
    return `${request.platform} ${request.channelId} "${request.prompt}": ${messages.length} message(s) ${shown.join("; ")}`;
  }

  /** The completion notices that name the request's requester and its generation. */
  function noticesOf(request: Requested): unknown[] {
    const [message] = statusMessagesOf(request);
    if (!message) return [];
    if ("ts" in message) {
      return slack.fake
        .messagesIn(message.channel)
        .filter((candidate) =>
          candidate.text.startsWith(`<@${request.userId}> your images of “${request.prompt}”`),
        );
    }
    return discordNoticesOf(discord.replicas[0], message).filter((notice) =>
      notice.content.startsWith(`<@${request.userId}>`),
    );
  }

  /** Every edit of a message the platforms took (a refused one changed nothing), read from their records. */
  function landedEdits(): LandedEdit[] {
    const onDiscord = discord.fake.calls.flatMap((call): LandedEdit[] => {
      if (call.method !== "PATCH" || call.status !== 200) return [];
      const interactionId = /^\/webhooks\/\d+\/token-(\d+)\/messages\/@original$/.exec(call.path)?.[1];
      const messageId =
        /^\/channels\/\d+\/messages\/(\d+)$/.exec(call.path)?.[1] ??
        (interactionId === undefined ? undefined : discord.fake.answerTo(interactionId)?.id);
      const message = discord.fake.messages.get(messageId ?? "");
      // Answers to other commands (connecting a server) never show a status.
      if (!message || message.statusHistory.length === 0) return [];
      const body = call.body as Partial<DiscordMessage> | undefined;
      return [
        {
          messageKey: messageKey("discord", message.channel_id, message.id),
          prompt: body?.embeds?.[0]?.description,
          buttonGenerations: generationsOfButtons(
            (body?.components ?? []).flatMap((row) => row.components.map((button) => button.custom_id)),
          ),
        },
      ];
    });
    const onSlack = slack.fake
      .callsOf("chat.update")
      .filter((call) => call.error === undefined)
      .map((call) => {
        const blocks = call.args.blocks as SlackBlock[] | undefined;
        return {
          messageKey: messageKey("slack", String(call.args.channel), String(call.args.ts)),
          prompt: slackHeaderOf(blocks),
          buttonGenerations: generationsOfButtons(
            (blocks ?? [])
              .flatMap((block) => block.elements ?? [])
              .flatMap((element) => element.action_id ?? []),
          ),
        };
      });
    return [...onDiscord, ...onSlack];
  }

  /** The account's generations, as imagehub answers them: each names the message it was posted for. */
  async function generationsOfAccount(): Promise<ImageGeneration[]> {
    const client = new ImagehubClient({ baseUrl: imagehub.baseUrl, apiKey });
    const generations: ImageGeneration[] = [];
    for await (const generation of client.generations.findAll({ limit: 100 })) generations.push(generation);
    return generations;
  }

  function updatesOf(replica: (typeof discord.replicas)[number] | (typeof slack.replicas)[number]) {
    return replica.bot.core.updates;
  }
});

/**
 * The edits that showed another generation than the one their message was posted for (its record in the
 * generation's metaData binds the message to it): another prompt, or buttons acting on another generation.
 */
function editsOfAnotherGeneration(edits: LandedEdit[], generations: ImageGeneration[]): string[] {
  const owners = new Map<string, ImageGeneration>();
  for (const generation of generations) {
    const chat = generation.metaData.chat as
      | { platform: Platform; channelId: string; messageId: string }
      | undefined;
    if (chat) owners.set(messageKey(chat.platform, chat.channelId, chat.messageId), generation);
  }
  return edits.flatMap((edit) => {
    const owner = owners.get(edit.messageKey);
    if (!owner) return [`${edit.messageKey}: edited, but no generation was posted with it`];
    // Every status edit shows its generation's prompt: one without names no generation, and is counted too.
    const isOtherPrompt = edit.prompt !== owner.prompt;
    const others = edit.buttonGenerations.filter((generationId) => generationId !== owner.id);
    if (!isOtherPrompt && others.length === 0) return [];
    return [
      `${edit.messageKey} (${owner.id}, "${owner.prompt}"): showed "${edit.prompt}", buttons of ${others.join(", ")}`,
    ];
  });
}
