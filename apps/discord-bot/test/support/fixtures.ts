import { until } from "../../../../tests/support/until.js";
import type { BotHarness } from "./discord-bot-harness.js";
import type { FakeDiscord, FakeMessage, Member } from "./fake-discord.js";

/** The people, options and readings the Discord bot's specs are written with. */

/** The API's webhooks delivered at once and retried fast, images spaced so that each step shows. */
export const WEBHOOKS_AT_ONCE = {
  WEBHOOK_ALLOW_HTTP: "true",
  WEBHOOK_ALLOW_PRIVATE: "true",
  WEBHOOK_RELAY_INTERVAL_MS: "20",
  WEBHOOK_RETRY_SCHEDULE: "0.1,0.2,0.3,0.4,0.5,0.5,0.5",
  PROCEDURAL_IMAGE_DELAY_MS: "150",
};

/** A member with every permission (Manage Server included). */
export const ADMIN: Member = { id: "100000000000000001", username: "admin" };
/** A member with no permission. */
export const MEMBER: Member = { id: "100000000000000002", username: "member", permissions: "0" };
export const BUYERS_ROLE = "100000000000000500";
/** A member of the role an admin lets buy. */
export const BUYER: Member = {
  id: "100000000000000004",
  username: "buyer",
  permissions: "0",
  roles: [BUYERS_ROLE],
};

/** Discord's option types (https://discord.com/developers/docs/interactions/application-commands). */
export const SUBCOMMAND = 1;
export const STRING = 3;
export const INTEGER = 4;
export const BOOLEAN = 5;
export const ROLE = 8;
/** The flag of a message seen by whoever acted alone. */
export const EPHEMERAL = 64;

/** The Status field of a status message. */
export const statusOf = (message: FakeMessage | undefined) =>
  message?.embeds[0]?.fields?.find((field) => field.name === "Status")?.value;

export const buttonsOf = (message: FakeMessage | undefined) =>
  message?.components.flatMap((row) => row.components.map((button) => button.label)) ?? [];

export const buttonId = (message: FakeMessage, label: string) =>
  message.components.flatMap((row) => row.components).find((button) => button.label === label)?.custom_id ??
  "";

/** Each step as a number (Queued -1, Generating n/4 n, Done 9), for checking a message never went back. */
export const stepsOf = (message: FakeMessage | undefined) =>
  (message?.statusHistory ?? []).map((status) =>
    status === "Done" ? 9 : Number(/(\d)\/4/.exec(status)?.[1] ?? -1),
  );

/** The completion notices of a status message: new messages that link it. */
export const noticesOf = (bot: BotHarness, message: FakeMessage) =>
  [...bot.fake.messages.values()].filter(
    (candidate) =>
      candidate.id !== message.id && candidate.content.endsWith(`/${message.channel_id}/${message.id}`),
  );

/** A delivery signed with a key imagehub never gave out. */
export const forgedDelivery = (url: string) =>
  fetch(url, {
    method: "POST",
    headers: {
      "webhook-id": "msg_forged",
      "webhook-timestamp": String(Math.floor(Date.now() / 1000)),
      "webhook-signature": "v1,Zm9yZ2VkIHNpZ25hdHVyZQ==",
    },
    body: JSON.stringify({ id: "msg_forged", api_version: 1, created: 0, type: "test", data: {} }),
  });

/** The last answer to an interaction once it has text (a deferred answer gets its text in a later edit). */
export async function answerWithText(fake: FakeDiscord, interactionId: string): Promise<FakeMessage> {
  await until(() => (fake.lastAnswerTo(interactionId)?.content ?? "") !== "", { what: "the answer" });
  return fake.lastAnswerTo(interactionId) as FakeMessage;
}
