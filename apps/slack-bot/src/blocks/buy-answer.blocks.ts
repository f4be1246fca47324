import { type Locale, messagesFor, type PurchaseOutcome } from "@imagehub/chat-core";
import { escapeMrkdwn, type SlackMessage } from "./mrkdwn.js";

/** What the person who clicked `Buy n` alone sees: the links and the credits left, or why not. */
export function buyAnswer(outcome: PurchaseOutcome, locale: Locale): SlackMessage {
  const { purchases, slack } = messagesFor(locale);
  if (outcome.kind === "refused") {
    // The message names a user group as <!subteam^ID>: mrkdwn the bot wrote, not user text.
    const text = `:no_entry: ${outcome.message}`;
    return { text, blocks: [{ type: "section", text: { type: "mrkdwn", text } }] };
  }
  if (outcome.kind === "no-credits") {
    const text = `:no_entry: ${purchases.noCredits(outcome.imageNumber, escapeMrkdwn(outcome.message))}`;
    return { text, blocks: [{ type: "section", text: { type: "mrkdwn", text } }] };
  }
  const { full, upscale, uhd } = outcome.links;
  const links = [
    link(full, purchases.fullSize),
    ...(upscale ? [link(upscale, purchases.upscaled)] : []),
    link(uhd, purchases.uhd),
  ];
  const heading = `:white_check_mark: ${purchases.yours(outcome.imageNumber, links.join(" · "))}`;
  const credits = outcome.creditsLeft === undefined ? [] : [purchases.creditsLeft(outcome.creditsLeft)];
  return {
    text: purchases.yours(outcome.imageNumber, full),
    blocks: [
      { type: "section", text: { type: "mrkdwn", text: heading } },
      ...credits.map((line) => ({
        type: "context" as const,
        elements: [{ type: "mrkdwn" as const, text: `${line} · ${slack.secondClickFree}` }],
      })),
    ],
  };
}

function link(url: string, label: string): string {
  return `<${escapeMrkdwn(url)}|${label}>`;
}
