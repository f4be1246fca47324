import { FLAG_SYNTAX_HELP } from "@imagehub/chat-core";
import type { ApiKeyCheck, Credit, CreditBucketType } from "@imagehub/domain";
import { escapeMrkdwn } from "./mrkdwn.js";

/** The ephemeral answers of `/generate` and `/imagehub`, as mrkdwn text. */

const FLAG_SYNTAX = `\`${FLAG_SYNTAX_HELP.replaceAll("\n", "`\n`")}\``;

export const HELP_TEXT = [
  "*/generate* `<description> [flags]`: 4 images, then a Buy button under each. `/generate` alone opens a form.",
  `Flags: ${FLAG_SYNTAX}`,
  "*/imagehub connect* `<API key>`: (workspace admins) this workspace uses that imagehub account.",
  "*/imagehub status*: the account this workspace uses and its credits.",
  "*/imagehub disconnect*: (workspace admins) forget the key and its webhook.",
].join("\n");

export const CONNECT_USAGE =
  "Give the key: `/imagehub connect <API key>` (it is kept encrypted; no one sees it again).";

/** Nothing was created: why, in the words of the options used. */
export function refusalText(problems: string[], { withSyntax = false } = {}): string {
  const listed =
    problems.length === 1 ? ` ${problems[0]}` : `\n${problems.map((problem) => `• ${problem}`).join("\n")}`;
  const syntax = withSyntax ? `\nUsage: /generate ${FLAG_SYNTAX}` : "";
  return `:no_entry: Nothing was created.${escapeMrkdwn(listed)}${syntax}`;
}

export function adminsOnlyText(subcommand: string): string {
  return `:lock: Only workspace admins and owners can \`/imagehub ${subcommand}\`.`;
}

export function connectedText(account: ApiKeyCheck): string {
  return `:link: This workspace now uses the imagehub account *${escapeMrkdwn(account.email)}* (key \`${escapeMrkdwn(account.apiKeyPrefix)}…\`). The key is kept encrypted.`;
}

export function disconnectedText(wasConnected: boolean): string {
  return wasConnected
    ? ":wave: This workspace's imagehub key and its webhook are removed."
    : "This workspace had no imagehub key of its own: nothing to remove.";
}

/** The buckets a chat user cares about, in this order. */
const CREDIT_LABELS: [CreditBucketType, string][] = [
  ["f_images_print", "generations"],
  ["f_images", "purchases"],
];

export function statusText({
  account,
  credits,
  isOwnKey,
}: {
  account: ApiKeyCheck;
  credits: Credit[];
  isOwnKey: boolean;
}): string {
  const source = isOwnKey ? "This workspace uses" : "This workspace uses this deployment's default key, of";
  const left = CREDIT_LABELS.flatMap(([type, label]) => {
    const credit = credits.find((bucket) => bucket.type === type);
    return credit ? [`${label} left: ${credit.unlimited ? "unlimited" : credit.credit}`] : [];
  });
  return [
    `:information_source: ${source} the imagehub account *${escapeMrkdwn(account.email)}* (key \`${escapeMrkdwn(account.apiKeyPrefix)}…\`).`,
    ...(left.length > 0 ? [left.join(" · ")] : []),
  ].join("\n");
}
