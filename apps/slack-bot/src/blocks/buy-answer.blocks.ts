import type { PurchaseOutcome } from "@imagehub/chat-core";
import { escapeMrkdwn, type SlackMessage } from "./mrkdwn.js";

/** What the person who clicked `Buy n` alone sees: the links and the credits left, or why not. */
export function buyAnswer(outcome: PurchaseOutcome): SlackMessage {
  if (outcome.kind === "refused") {
    // The message names a user group as <!subteam^ID>: mrkdwn the bot wrote, not user text.
    const text = `:no_entry: ${outcome.message}`;
    return { text, blocks: [{ type: "section", text: { type: "mrkdwn", text } }] };
  }
  if (outcome.kind === "no-credits") {
    const text = `:no_entry: Not enough credits to buy image ${outcome.imageNumber}: ${escapeMrkdwn(outcome.message)}`;
    return { text, blocks: [{ type: "section", text: { type: "mrkdwn", text } }] };
  }
  const { full, upscale, uhd } = outcome.links;
  const links = [link(full, "Full size"), ...(upscale ? [link(upscale, "Upscaled")] : []), link(uhd, "UHD")];
  const heading = `:white_check_mark: Image ${outcome.imageNumber} is yours: ${links.join(" · ")}`;
  const credits =
    outcome.creditsLeft === undefined
      ? []
      : [`Purchase credits left: ${outcome.creditsLeft === "unlimited" ? "unlimited" : outcome.creditsLeft}`];
  return {
    text: `Image ${outcome.imageNumber} is yours: ${full}`,
    blocks: [
      { type: "section", text: { type: "mrkdwn", text: heading } },
      ...credits.map((line) => ({
        type: "context" as const,
        elements: [{ type: "mrkdwn" as const, text: `${line} · a second click costs nothing.` }],
      })),
    ],
  };
}

function link(url: string, label: string): string {
  return `<${escapeMrkdwn(url)}|${label}>`;
}
