import { ImagehubClient } from "@imagehub/client";
import type { ImageGeneration } from "@imagehub/domain";
import { afterAll, beforeAll } from "vitest";
import { startTestApi, type TestApi } from "../../../../tests/support/test-api.js";
import { until } from "../../../../tests/support/until.js";
import { escapeMrkdwn } from "../../src/blocks/mrkdwn.js";
import { type FakeMessage, FakeSlack } from "./fake-slack.js";
import { BOT_TOKEN } from "./test-bot.js";

/**
 * The real API, its worker and the procedural engine, delivering webhooks to a bot on 127.0.0.1 over http
 * without delay; each image takes a moment, so that a status message has steps to show.
 */
export function startImagehub(): Promise<TestApi> {
  return startTestApi({
    env: {
      WEBHOOK_ALLOW_HTTP: "true",
      WEBHOOK_ALLOW_PRIVATE: "true",
      WEBHOOK_RETRY_SCHEDULE: "0.1,0.2,0.3,0.4,0.5",
      WEBHOOK_TIMEOUT_SECONDS: "5",
      WEBHOOK_RELAY_INTERVAL_MS: "20",
      PROCEDURAL_IMAGE_DELAY_MS: "150",
    },
  });
}

/**
 * For a describe block: imagehub (startImagehub) and Slack's fake, the bot's token known to `teamId`'s
 * workspace, started before its tests and closed after them; the accessors answer them once started.
 */
export function imagehubAndSlack(teamId = "T001") {
  let api: TestApi | undefined;
  let fake: FakeSlack | undefined;
  beforeAll(async () => {
    [api, fake] = await Promise.all([startImagehub(), FakeSlack.start()]);
    fake.addBotToken(BOT_TOKEN, teamId);
  });
  afterAll(async () => {
    await fake?.close();
    await api?.close();
  });
  return { api: () => api as TestApi, fake: () => fake as FakeSlack };
}

export function imagehubClient(api: TestApi, apiKey: string): ImagehubClient {
  return new ImagehubClient({ baseUrl: api.baseUrl, apiKey });
}

/** The generation a status message shows, found by the message ts recorded in its metaData. */
export async function generationOf(imagehub: ImagehubClient, message: FakeMessage): Promise<ImageGeneration> {
  const { prints } = await imagehub.generations.find({ limit: 100 });
  const generation = prints.find(
    (print) => (print.metaData.chat as { messageId?: string } | undefined)?.messageId === message.ts,
  );
  if (!generation) throw new Error(`no generation points at the message ${message.ts}`);
  return generation;
}

/** What a status message said at each step: "Queued", "Generating… 2/4", "Done", "Failed: …". */
export function statusesOf(message: FakeMessage): string[] {
  return message.versions.map((version) => {
    // The header is plain text; the fallback text is mrkdwn, where the title is escaped.
    const title = escapeMrkdwn(version.blocks[0]?.text?.text ?? "");
    if (version.text.startsWith(`${title}: `)) return version.text.slice(`${title}: `.length);
    // A title past the header's 150 characters is cut there, not in the text.
    return STATUS_AT_END.exec(version.text)?.[0] ?? version.text;
  });
}

const STATUS_AT_END = /(?:Queued|Generating… \d\/\d|Done|Failed: .*)$/s;

export function buttonsOf(message: FakeMessage): { label: string; actionId: string }[] {
  return message.blocks
    .flatMap((block) => block.elements ?? [])
    .filter((element) => element.type === "button")
    .map((element) => ({ label: element.text?.text ?? "", actionId: element.action_id ?? "" }));
}

/** Waits for the status message of a channel to reach a step ("Done", "Failed"…), and answers it. */
export async function statusMessageAt(
  fake: FakeSlack,
  channelId: string,
  step = "Done",
): Promise<FakeMessage> {
  await until(() => fake.messagesIn(channelId).length > 0, { what: `the status message in ${channelId}` });
  const [message] = fake.messagesIn(channelId) as [FakeMessage];
  await until(() => statusesOf(message).at(-1)?.startsWith(step) === true, {
    what: `"${step}" in ${channelId}`,
  });
  return message;
}
