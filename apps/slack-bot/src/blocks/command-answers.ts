import {
  DAILY_GENERATIONS_MAX,
  DAILY_PURCHASE_CAP_MAX,
  describeSettings,
  describeUsage,
  type Locale,
  messagesFor,
  type PersonUsage,
  type TeamSettings,
  type TeamSettingsChange,
} from "@imagehub/chat-core";
import type { ApiKeyCheck, Credit, CreditBucketType } from "@imagehub/domain";
import { escapeMrkdwn } from "./mrkdwn.js";

/** The ephemeral answers of `/generate` and `/imagehub`, as mrkdwn text, in the person's language. */

/** The flags of `/generate` as code, a line each. */
function flagSyntax(locale: Locale): string {
  return `\`${messagesFor(locale).flags.syntax.replaceAll("\n", "`\n`")}\``;
}

export function helpText(locale: Locale): string {
  return messagesFor(locale).slack.help(flagSyntax(locale)).join("\n");
}

function settingsUsage(locale: Locale): string {
  return messagesFor(locale).slack.settingsUsage(DAILY_PURCHASE_CAP_MAX, DAILY_GENERATIONS_MAX);
}

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
  locale: Locale,
): { ok: true; change: TeamSettingsChange; buyersHandle?: string } | { ok: false; problem: string } {
  const { slack } = messagesFor(locale);
  const usage = settingsUsage(locale);
  const change: TeamSettingsChange = {};
  let buyersHandle: string | undefined;
  for (let index = 0; index < words.length; index += 2) {
    const [name = "", value] = [words[index]?.toLowerCase(), words[index + 1]];
    if (value === undefined) return { ok: false, problem: `${slack.needsValue(name)} ${usage}` };
    if (name === "buyers") {
      const group = USER_GROUP.exec(value);
      const handle = USER_GROUP_HANDLE.exec(value)?.[1];
      if (value.toLowerCase() === "none") change.buyersGroupId = null;
      else if (group) change.buyersGroupId = group[1] ?? group[2] ?? null;
      else if (handle) buyersHandle = handle.toLowerCase();
      else
        return {
          ok: false,
          problem: `${slack.buyersTakesGroup} ${usage}`,
        };
    } else if (name === "cap") {
      const cap = Number(value);
      if (value.toLowerCase() === "none") change.dailyPurchaseCap = null;
      else if (/^\d+$/.test(value) && cap <= DAILY_PURCHASE_CAP_MAX) change.dailyPurchaseCap = cap;
      else
        return {
          ok: false,
          problem: slack.takesWholeNumber("cap", DAILY_PURCHASE_CAP_MAX),
        };
    } else if (name === "quota") {
      const quota = Number(value);
      if (value.toLowerCase() === "none") change.dailyGenerationsPerPerson = null;
      else if (/^\d+$/.test(value) && quota <= DAILY_GENERATIONS_MAX)
        change.dailyGenerationsPerPerson = quota;
      else
        return {
          ok: false,
          problem: slack.takesWholeNumber("quota", DAILY_GENERATIONS_MAX),
        };
    } else {
      return { ok: false, problem: usage };
    }
  }
  return { ok: true, change, ...(buyersHandle !== undefined && { buyersHandle }) };
}

export function unknownGroupText(handle: string, locale: Locale): string {
  return `${messagesFor(locale).slack.unknownGroup(escapeMrkdwn(handle))} ${settingsUsage(locale)}`;
}

/** The answer to `/imagehub usage`, seen only by whoever asked. */
export function usageText(usage: PersonUsage, locale: Locale): string {
  return [
    `:bar_chart: ${messagesFor(locale).answers.yourUsage}`,
    ...describeUsage(usage, locale).map((line) => `• ${line}`),
  ].join("\n");
}

export function settingsText(settings: TeamSettings, isChanged: boolean, locale: Locale): string {
  const { answers, slack } = messagesFor(locale);
  const lines = describeSettings(settings, (groupId) => slack.buyersGroup(`<!subteam^${groupId}>`), locale);
  return [
    isChanged ? `:white_check_mark: ${answers.settingsSaved}` : `:gear: ${slack.workspaceSettings}`,
    ...lines.map((line) => `• ${line}`),
  ].join("\n");
}

export function connectUsageText(locale: Locale): string {
  return messagesFor(locale).slack.connectUsage;
}

/** Nothing was created: why, in the words of the options used. */
export function refusalText(problems: string[], locale: Locale, { withSyntax = false } = {}): string {
  const { slack } = messagesFor(locale);
  const listed =
    problems.length === 1 ? ` ${problems[0]}` : `\n${problems.map((problem) => `• ${problem}`).join("\n")}`;
  const syntax = withSyntax ? `\n${slack.generateUsage(flagSyntax(locale))}` : "";
  return `:no_entry: ${slack.nothingCreated}${escapeMrkdwn(listed)}${syntax}`;
}

export function adminsOnlyText(subcommand: string, locale: Locale): string {
  return `:lock: ${messagesFor(locale).slack.adminsOnly(subcommand)}`;
}

export function connectedText(account: ApiKeyCheck, locale: Locale): string {
  return `:link: ${messagesFor(locale).slack.connected(escapeMrkdwn(account.email), escapeMrkdwn(account.apiKeyPrefix))}`;
}

export function disconnectedText(wasConnected: boolean, locale: Locale): string {
  const { slack } = messagesFor(locale);
  return wasConnected ? `:wave: ${slack.disconnected}` : slack.hadNoKey;
}

export function statusText({
  account,
  credits,
  isOwnKey,
  locale,
}: {
  account: ApiKeyCheck;
  credits: Credit[];
  isOwnKey: boolean;
  locale: Locale;
}): string {
  const { slack } = messagesFor(locale);
  // The buckets a chat user cares about, in this order.
  const buckets: [CreditBucketType, (left: number | "unlimited") => string][] = [
    ["f_images_print", slack.generationsLeft],
    ["f_images", slack.purchasesLeft],
  ];
  const left = buckets.flatMap(([type, label]) => {
    const credit = credits.find((bucket) => bucket.type === type);
    return credit ? [label(credit.unlimited ? "unlimited" : credit.credit)] : [];
  });
  return [
    `:information_source: ${slack.status(escapeMrkdwn(account.email), escapeMrkdwn(account.apiKeyPrefix), isOwnKey)}`,
    ...(left.length > 0 ? [left.join(" · ")] : []),
  ].join("\n");
}
