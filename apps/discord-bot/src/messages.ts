import type { BuyOutcome, GenerationPhase, GenerationView, PreviewFile } from "@imagehub/chat-core";
import type { ApiKeyCheck, Credits } from "@imagehub/domain";
import {
  type APIActionRowComponent,
  type APIButtonComponent,
  type APIEmbed,
  ButtonStyle,
  ComponentType,
} from "discord.js";

/** Discord's limits on embed text. */
const TITLE_MAX = 256;
const DESCRIPTION_MAX = 4096;

const PHASE_COLORS: Record<GenerationPhase, number> = {
  queued: 0x99aab5,
  active: 0x5865f2,
  done: 0x57f287,
  failed: 0xed4245,
};

/** No message of the bot pings anyone but whom it names itself. */
export const NO_MENTIONS = { parse: [] as [] };

export interface StatusMessage {
  embeds: APIEmbed[];
  components: APIActionRowComponent<APIButtonComponent>[];
  allowed_mentions: typeof NO_MENTIONS;
  /** Uploaded with the message: the 4 previews once Done, shown by Discord as a grid. */
  files: { name: string; data: Buffer; contentType: string; description: string }[];
}

/** The status message of a generation at any step, built from its view. */
export function statusMessage(view: GenerationView, previews: PreviewFile[] = []): StatusMessage {
  const embed: APIEmbed = {
    title: truncate(neutralized(view.title), TITLE_MAX),
    description: truncate(neutralized(view.prompt), DESCRIPTION_MAX),
    color: PHASE_COLORS[view.phase],
    fields: [
      ...(view.parameters.length > 0
        ? [{ name: "Parameters", value: truncate(neutralized(view.parameters.join(" · ")), 1024) }]
        : []),
      { name: "Status", value: truncate(neutralized(view.status), 1024) },
    ],
  };
  return {
    embeds: [embed],
    allowed_mentions: NO_MENTIONS,
    components:
      view.buttons.length === 0
        ? []
        : [
            {
              type: ComponentType.ActionRow,
              components: view.buttons.map((button) => ({
                type: ComponentType.Button,
                custom_id: button.id,
                label: button.label,
                style: button.action.kind === "buy" ? ButtonStyle.Primary : ButtonStyle.Secondary,
              })),
            },
          ],
    files: previews.map((preview) => ({
      name: preview.name,
      data: preview.jpeg,
      contentType: "image/jpeg",
      // Alt text, read by screen readers (Discord allows 1024 characters).
      description: truncate(`Image ${preview.number} of “${view.title}”`, 1024),
    })),
  };
}

/** The answer to `Buy n`, seen only by whoever clicked. */
export function buyAnswer(outcome: BuyOutcome): string {
  if (outcome.kind === "no-credits") {
    return `Not enough credits to buy image ${outcome.imageNumber}: ${outcome.message}`;
  }
  const { full, upscale, uhd } = outcome.links;
  const links = [`[Full size](${full})`, ...(upscale ? [`[Upscale 2×](${upscale})`] : []), `[UHD](${uhd})`];
  const credits =
    outcome.creditsLeft === undefined
      ? ""
      : `\nCredits left: ${outcome.creditsLeft === "unlimited" ? "unlimited" : outcome.creditsLeft}`;
  return `Image ${outcome.imageNumber} is yours: ${links.join(" · ")} (links expire; click again for fresh ones, at no cost)${credits}`;
}

export function statusAnswer(account: ApiKeyCheck, { credits }: Credits, ownKey: boolean): string {
  const lines = credits.map(
    (credit) =>
      `• ${credit.type}: ${credit.unlimited ? "unlimited" : `${credit.credit} of ${credit.creditTotal}`}`,
  );
  return [
    `Connected to the imagehub account of ${account.email} (${ownKey ? "this server's key" : "the bot's default key"}, ${account.apiKeyPrefix}…).`,
    "Credits:",
    ...lines,
  ].join("\n");
}

export function problemsAnswer(problems: string[]): string {
  return problems.length === 1
    ? `⚠️ ${problems[0]}`
    : `⚠️ Please fix:\n${problems.map((problem) => `• ${problem}`).join("\n")}`;
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

function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
