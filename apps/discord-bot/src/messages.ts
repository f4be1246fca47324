import type {
  ChatTarget,
  GenerationPhase,
  GenerationView,
  GridImage,
  Locale,
  PreviewFile,
  PurchaseOutcome,
  TeamSettings,
  ViewButton,
} from "@imagehub/chat-core";
import { describeSettings, describeUsage, messagesFor, type PersonUsage } from "@imagehub/chat-core";
import type { ApiKeyCheck, Credits } from "@imagehub/domain";
import {
  type APIActionRowComponent,
  type APIButtonComponent,
  type APIEmbed,
  ButtonStyle,
  ComponentType,
} from "discord.js";
import { isDirectTeam } from "./direct-messages.js";

/**
 * Discord's limits on message text (https://discord.com/developers/docs/resources/message#embed-object-embed-limits):
 * past them it refuses the whole message (50035 Invalid Form Body).
 */
const CONTENT_MAX = 2000;
const TITLE_MAX = 256;
const DESCRIPTION_MAX = 4096;
const FIELD_VALUE_MAX = 1024;
/** Title, description, field names and values of a message's embeds, together. */
const EMBEDS_TOTAL_MAX = 6000;
/** Buttons per action row (https://discord.com/developers/docs/components/reference). */
const BUTTONS_PER_ROW = 5;

const PHASE_COLORS: Record<GenerationPhase, number> = {
  queued: 0x99aab5,
  active: 0x5865f2,
  done: 0x57f287,
  failed: 0xed4245,
};

/** No message of the bot pings anyone but whom it names itself. */
export const NO_MENTIONS = { parse: [] as [] };

/** Who a message may ping: nobody by what its text says, only the users listed. */
export interface AllowedMentions {
  parse: [];
  users?: string[];
}

/** A file sent with a message, with its alt text (read by screen readers; Discord allows 1024 characters). */
export interface MessageFile {
  name: string;
  data: Buffer;
  contentType: string;
  description: string;
}

export interface StatusMessage {
  embeds: APIEmbed[];
  components: APIActionRowComponent<APIButtonComponent>[];
  allowed_mentions: typeof NO_MENTIONS;
  /** Uploaded with the message: the one 2×2 grid of the previews drawn so far, shown inside the embed. */
  files: MessageFile[];
}

/**
 * The status message of a generation at any step, in its view's language, built from its view (and its grid
 * once an image is drawn).
 */
export function statusMessage(view: GenerationView, grid?: GridImage): StatusMessage {
  const messages = messagesFor(view.locale);
  const { discord } = messages;
  const title = truncate(neutralized(view.title), TITLE_MAX);
  const fields = [
    ...(view.parameters.length > 0
      ? [
          {
            name: discord.embedParameters,
            value: truncate(neutralized(view.parameters.join(" · ")), FIELD_VALUE_MAX),
          },
        ]
      : []),
    { name: discord.embedStatus, value: truncate(neutralized(view.status), FIELD_VALUE_MAX) },
    // Done without its grid (the plainest form): a link to each image.
    ...(view.phase === "done" && !grid && view.images.length > 0
      ? [{ name: discord.embedImages, value: imageLinks(view) }]
      : []),
  ];
  // The prompt gives way when all texts together would pass Discord's total.
  const others = [title, ...fields.flatMap((field) => [field.name, field.value])];
  const descriptionMax = Math.min(
    DESCRIPTION_MAX,
    EMBEDS_TOTAL_MAX - others.reduce((sum, text) => sum + length(text), 0),
  );
  const embed: APIEmbed = {
    title,
    description: truncate(neutralized(view.prompt), descriptionMax),
    color: PHASE_COLORS[view.phase],
    fields,
    ...(grid && { image: { url: `attachment://${grid.name}` } }),
  };
  return {
    embeds: [embed],
    allowed_mentions: NO_MENTIONS,
    components: buttonRows(view.buttons),
    files: grid
      ? [
          {
            name: grid.name,
            data: grid.jpeg,
            contentType: "image/jpeg",
            description: truncate(
              messages.view.gridAlt(view.imagesDone, view.title, view.phase === "done"),
              1024,
            ),
          },
        ]
      : [],
  };
}

/** Kinds of buttons that take a row each (one button per image); the others share the last. */
const ROW_KINDS = ["buy", "upscale", "vary"];

/** Buy 1…4, U1…U4 and V1…V4 a row each, Show all and Again in the last: a row holds 5 buttons at most. */
function buttonRows(buttons: ViewButton[]): APIActionRowComponent<APIButtonComponent>[] {
  const groups = [
    ...ROW_KINDS.map((kind) => buttons.filter((button) => button.action.kind === kind)),
    buttons.filter((button) => !ROW_KINDS.includes(button.action.kind)),
  ].flatMap((group) =>
    Array.from({ length: Math.ceil(group.length / BUTTONS_PER_ROW) }, (_, index) =>
      group.slice(index * BUTTONS_PER_ROW, (index + 1) * BUTTONS_PER_ROW),
    ),
  );
  return groups.map((group) => ({
    type: ComponentType.ActionRow,
    components: group.map((button) => ({
      type: ComponentType.Button,
      custom_id: button.id,
      label: button.label,
      style: button.action.kind === "buy" ? ButtonStyle.Primary : ButtonStyle.Secondary,
    })),
  }));
}

/** The 4 previews, each with its alt text, for whoever clicked Show all. */
export function previewFiles(view: GenerationView, previews: PreviewFile[]): MessageFile[] {
  return previews.map((preview) => ({
    name: preview.name,
    data: preview.jpeg,
    contentType: "image/jpeg",
    description: truncate(messagesFor(view.locale).view.imageAlt(preview.number, view.title), 1024),
  }));
}

/** The images of a finished generation as links, numbered as their buttons. */
function imageLinks(view: GenerationView): string {
  return truncate(
    view.images.map((image) => `[${image.number}](${image.previewUrl})`).join(" · "),
    FIELD_VALUE_MAX,
  );
}

/** Where a status message is: the link Discord opens it at. */
export function messageLink(target: Pick<ChatTarget, "teamId" | "channelId" | "messageId">): string {
  const place = isDirectTeam(target.teamId) ? "@me" : target.teamId;
  return `https://discord.com/channels/${place}/${target.channelId}/${target.messageId}`;
}

/**
 * The short new message that tells the requester their generation ended: an edit notifies nobody, a new
 * message mentioning them does. It pings that person alone, whatever the title says, and links the status
 * message (a reply would need Read Message History).
 */
export function endNotice(view: GenerationView, target: ChatTarget) {
  const { notices } = messagesFor(view.locale);
  const title = truncate(neutralized(view.title), TITLE_MAX);
  const user = target.userId;
  const content =
    view.phase === "done"
      ? `${notices.ready(`<@${user}>`, title)}: ${messageLink(target)}`
      : `${notices.failed(`<@${user}>`, title, truncate(neutralized(view.failureReason ?? ""), 1024))} ${messageLink(target)}`;
  return { content, allowed_mentions: { parse: [] as [], users: [user] } };
}

/** The direct message that tells the requester their status message is gone, and where the images are. */
export function goneNotice(view: GenerationView, target: ChatTarget, reason: string) {
  const { notices } = messagesFor(view.locale);
  const title = truncate(neutralized(view.title), TITLE_MAX);
  const images = view.phase === "done" ? ` ${notices.yourImages} ${imageLinks(view)}` : "";
  const content = truncate(
    `${notices.gone(title, `<#${target.channelId}>`, neutralized(reason), view.status)}${images}`,
    CONTENT_MAX,
  );
  return { content, allowed_mentions: NO_MENTIONS };
}

/**
 * The direct message that tells the requester the bot lacks permissions to update their status message: it
 * catches up on its own once a server admin grants them.
 */
export function permissionNotice(view: GenerationView, target: ChatTarget, missing: string) {
  const title = truncate(neutralized(view.title), TITLE_MAX);
  const content = truncate(
    messagesFor(view.locale).discord.permissionMissing(title, `<#${target.channelId}>`, missing),
    CONTENT_MAX,
  );
  return { content, allowed_mentions: NO_MENTIONS };
}

/** An admin's answer to `/imagehub settings`. */
export function settingsAnswer(settings: TeamSettings, isChanged: boolean, locale: Locale): string {
  const messages = messagesFor(locale);
  const lines = describeSettings(settings, (roleId) => messages.discord.buyersRole(`<@&${roleId}>`), locale);
  return [
    isChanged ? messages.answers.settingsSaved : messages.discord.serverSettings,
    ...lines.map((line) => `• ${line}`),
  ].join("\n");
}

/**
 * The public answer to `U n`: the clean image in full size, in the channel as Midjourney shows it; its
 * links (which expire) went to whoever clicked, alone.
 */
export function upscaledMessage(fullSize: PreviewFile, userId: string, locale: Locale) {
  const messages = messagesFor(locale);
  return {
    content: messages.purchases.upscaledFor(fullSize.number, `<@${userId}>`),
    allowedMentions: { parse: [] as [] },
    files: [
      {
        name: fullSize.name,
        attachment: fullSize.jpeg,
        description: messages.view.fullSizeAlt(fullSize.number),
      },
    ],
  };
}

/** The answer to `/imagehub usage`, seen only by whoever asked. */
export function usageAnswer(usage: PersonUsage, locale: Locale): string {
  return [
    messagesFor(locale).answers.yourUsage,
    ...describeUsage(usage, locale).map((line) => `• ${line}`),
  ].join("\n");
}

/** The answer to `Buy n` (and the links of `U n`), seen only by whoever clicked. */
export function buyAnswer(outcome: PurchaseOutcome, locale: Locale): string {
  const { purchases } = messagesFor(locale);
  if (outcome.kind === "refused") return `⚠️ ${outcome.message}`;
  if (outcome.kind === "no-credits") return purchases.noCredits(outcome.imageNumber, outcome.message);
  const { full, upscale, uhd } = outcome.links;
  const links = [
    `[${purchases.fullSize}](${full})`,
    ...(upscale ? [`[${purchases.upscaled}](${upscale})`] : []),
    `[${purchases.uhd}](${uhd})`,
  ];
  const credits = outcome.creditsLeft === undefined ? "" : `\n${purchases.creditsLeft(outcome.creditsLeft)}`;
  return `${purchases.yours(outcome.imageNumber, links.join(" · "))} (${purchases.linksExpire})${credits}`;
}

export function statusAnswer(
  account: ApiKeyCheck,
  { credits }: Credits,
  ownKey: boolean,
  locale: Locale,
): string {
  const { answers, discord } = messagesFor(locale);
  const lines = credits.map(
    (credit) =>
      `• ${credit.type}: ${credit.unlimited ? answers.unlimited : answers.creditOf(credit.credit, credit.creditTotal)}`,
  );
  return [discord.status(account.email, ownKey, account.apiKeyPrefix), discord.credits, ...lines].join("\n");
}

/** The problems of a request, one per line; as many whole lines as Discord's 2000 characters take. */
export function problemsAnswer(problems: string[], locale: Locale): string {
  const { answers } = messagesFor(locale);
  if (problems.length === 1) return truncate(`⚠️ ${problems[0]}`, CONTENT_MAX);
  const lines = [`⚠️ ${answers.pleaseFix}`];
  for (const [index, problem] of problems.entries()) {
    const line = truncate(`• ${problem}`, 200);
    const more = answers.andMore(problems.length - index);
    const isLast = index === problems.length - 1;
    if (length([...lines, line, ...(isLast ? [] : [more])].join("\n")) > CONTENT_MAX) {
      lines.push(more);
      break;
    }
    lines.push(line);
  }
  return lines.join("\n");
}

/**
 * A person's text as Discord shows it literally: markdown links (`[text](url)`), mentions (`@everyone`,
 * `<@id>`, `<#id>`, `<@&id>`) and other markdown are escaped, so a prompt cannot link or ping anywhere.
 */
export function neutralized(text: string): string {
  return text
    .replace(/[\\`*_~|<>[\]()]/g, (character) => `\\${character}`)
    .replace(/^(\s*)([#-])/gm, "$1\\$2")
    .replace(/@(everyone|here)/g, "@\u200b$1");
}

/** Discord counts characters (code points), not UTF-16 units. */
function length(text: string): number {
  return [...text].length;
}

function truncate(text: string, max: number): string {
  const characters = [...text];
  return characters.length <= max ? text : `${characters.slice(0, max - 1).join("")}…`;
}
