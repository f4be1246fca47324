import type { types } from "@slack/bolt";

/** A message as chat.postMessage, chat.update and chat.postEphemeral take it. */
export interface SlackMessage {
  /** What notifications and screen readers show. */
  text: string;
  blocks: types.KnownBlock[];
}

/** Slack reads &, < and > in mrkdwn as markup (links, mentions): user text must not be. */
export function escapeMrkdwn(text: string): string {
  return text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;");
}

/** What a person typed, as Slack sends it in a slash command (&, < and > escaped), back to what they typed. */
export function unescapeSlackText(text: string): string {
  return text.replaceAll("&lt;", "<").replaceAll("&gt;", ">").replaceAll("&amp;", "&");
}

/** Cuts text to one of Block Kit's length limits, marking the cut. */
export function cut(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

export function plainText(text: string): types.PlainTextElement {
  return { type: "plain_text", text, emoji: true };
}
