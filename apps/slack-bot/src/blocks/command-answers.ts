import {
  DAILY_GENERATIONS_MAX,
  DAILY_PURCHASE_CAP_MAX,
  describeSettings,
  describeUsage,
  FLAG_SYNTAX_HELP,
  type PersonUsage,
  type TeamSettings,
  type TeamSettingsChange,
} from "@imagehub/chat-core";
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
  "*/imagehub usage*: your generations today and the limits they count against (seen by you alone).",
  `*/imagehub settings* \`[buyers @group|none] [cap <images a day>|none] [quota <generations a day>|none]\`: (workspace admins) who may buy besides the requester and the admins, the daily purchase cap, and the daily quota of generations per person.`,
].join("\n");

export const SETTINGS_USAGE = `Usage: \`/imagehub settings buyers @group\` (or \`buyers none\`), \`/imagehub settings cap 20\` (0 to ${DAILY_PURCHASE_CAP_MAX}, or \`cap none\`), \`/imagehub settings quota 10\` (0 to ${DAILY_GENERATIONS_MAX} generations per person a day, or \`quota none\`); several may go in one command.`;

/** A user group as Slack sends it escaped (`<!subteam^S0123|@designers>`), or its bare id. */
const USER_GROUP = /^(?:<!subteam\^(S[A-Z0-9]+)(?:\|[^>]*)?>|(S[A-Z0-9]+))$/;
/**
 * A user group as typed: the manifest's commands have should_escape false, so Slack sends `@designers`
 * as plain text, and the bot looks the handle up (usergroups.list).
 */
const USER_GROUP_HANDLE = /^@([a-z0-9][a-z0-9._-]*)$/i;

/**
 * `/imagehub settings` words (after unescaping) to a change; `{}` asks for the settings alone. A group named
 * by its @handle comes back as `buyersHandle`, for the caller to look up.
 */
export function parseSettingsChange(
  words: string[],
): { ok: true; change: TeamSettingsChange; buyersHandle?: string } | { ok: false; problem: string } {
  const change: TeamSettingsChange = {};
  let buyersHandle: string | undefined;
  for (let index = 0; index < words.length; index += 2) {
    const [name = "", value] = [words[index]?.toLowerCase(), words[index + 1]];
    if (value === undefined) return { ok: false, problem: `\`${name}\` needs a value. ${SETTINGS_USAGE}` };
    if (name === "buyers") {
      const group = USER_GROUP.exec(value);
      const handle = USER_GROUP_HANDLE.exec(value)?.[1];
      if (value.toLowerCase() === "none") change.buyersGroupId = null;
      else if (group) change.buyersGroupId = group[1] ?? group[2] ?? null;
      else if (handle) buyersHandle = handle.toLowerCase();
      else
        return {
          ok: false,
          problem: `\`buyers\` takes a user group (e.g. @designers) or none. ${SETTINGS_USAGE}`,
        };
    } else if (name === "cap") {
      const cap = Number(value);
      if (value.toLowerCase() === "none") change.dailyPurchaseCap = null;
      else if (/^\d+$/.test(value) && cap <= DAILY_PURCHASE_CAP_MAX) change.dailyPurchaseCap = cap;
      else
        return {
          ok: false,
          problem: `\`cap\` takes a whole number from 0 to ${DAILY_PURCHASE_CAP_MAX}, or none.`,
        };
    } else if (name === "quota") {
      const quota = Number(value);
      if (value.toLowerCase() === "none") change.dailyGenerationsPerPerson = null;
      else if (/^\d+$/.test(value) && quota <= DAILY_GENERATIONS_MAX)
        change.dailyGenerationsPerPerson = quota;
      else
        return {
          ok: false,
          problem: `\`quota\` takes a whole number from 0 to ${DAILY_GENERATIONS_MAX}, or none.`,
        };
    } else {
      return { ok: false, problem: SETTINGS_USAGE };
    }
  }
  return { ok: true, change, ...(buyersHandle !== undefined && { buyersHandle }) };
}

export function unknownGroupText(handle: string): string {
  return `There is no user group @${escapeMrkdwn(handle)} in this workspace. ${SETTINGS_USAGE}`;
}

/** The answer to `/imagehub usage`, seen only by whoever asked. */
export function usageText(usage: PersonUsage): string {
  return [":bar_chart: Your use of imagehub here:", ...describeUsage(usage).map((line) => `• ${line}`)].join(
    "\n",
  );
}

export function settingsText(settings: TeamSettings, isChanged: boolean): string {
  const lines = describeSettings(settings, (groupId) => `the members of <!subteam^${groupId}>`);
  return [
    isChanged ? ":white_check_mark: Settings saved." : ":gear: This workspace's settings:",
    ...lines.map((line) => `• ${line}`),
  ].join("\n");
}

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
