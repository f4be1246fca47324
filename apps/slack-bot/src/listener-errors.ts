import {
  DEFAULT_LOCALE,
  describeFailure,
  type Locale,
  type Messages,
  messagesFor,
} from "@imagehub/chat-core";
import type { AnyMiddlewareArgs, App, Context, Logger } from "@slack/bolt";
import { ErrorCode, webApi } from "@slack/bolt";
import { channelOfModal } from "./blocks/generate-modal.blocks.js";
import { grantScopesAdvice } from "./slack-scopes.js";
import type { UserLocales } from "./user-locales.js";

/** Bolt's extended error handler arguments (App is created with extendedErrorHandler: true). */
interface ListenerErrorArgs {
  error: Error;
  logger: Logger;
  body: AnyMiddlewareArgs["body"];
  context: Context;
}

/** Slack refusals a person can fix, and how. */
const SLACK_PROBLEMS: Record<string, (messages: Messages) => string> = {
  not_in_channel: ({ slack }) => `:wave: ${slack.cannotPostHere}`,
  channel_not_found: ({ slack }) => `:wave: ${slack.cannotSeeChannel}`,
  is_archived: ({ slack }) => slack.channelArchived,
};

/**
 * The one place listener errors end: the person who acted hears what they can do about it (imagehub's
 * refusals in chat-core's words, Slack's own, or that the bot failed), in their language as last looked up;
 * faults of the bot are logged.
 */
export function handleListenerErrors(app: App, locales: UserLocales): void {
  app.error(async ({ error, logger, body, context }: ListenerErrorArgs) => {
    const cause = "original" in error && error.original instanceof Error ? error.original : error;
    const isNotInstalled = "code" in error && error.code === ErrorCode.AuthorizationError;
    const locale = localeOfRequest(locales, body, context);
    const { slack } = messagesFor(locale);
    const problem = isNotInstalled
      ? `:electric_plug: ${slack.notInstalled}`
      : (describeFailure(cause, locale) ?? slackProblem(cause, locale));
    if (problem === undefined) logger.error("listener failed:", cause);
    await tellUser(app, body, context, problem ?? `:boom: ${slack.somethingWentWrong}`).catch(
      (failure: unknown) => logger.error("could not tell the user about a failure:", failure),
    );
  });
}

/** The language of whoever made the request, when known (the listener looked it up), else English. */
function localeOfRequest(locales: UserLocales, body: ListenerErrorArgs["body"], context: Context): Locale {
  const userId =
    "user_id" in body && typeof body.user_id === "string"
      ? body.user_id
      : "user" in body && typeof body.user === "object" && body.user !== null && "id" in body.user
        ? String(body.user.id)
        : undefined;
  const teamId = context.teamId;
  if (userId === undefined || teamId === undefined) return DEFAULT_LOCALE;
  return locales.remembered(teamId, userId) ?? DEFAULT_LOCALE;
}

function slackProblem(error: Error, locale: Locale): string | undefined {
  if (!("code" in error) || error.code !== webApi.ErrorCode.PlatformError) return undefined;
  const { data } = error as webApi.WebAPIPlatformError;
  // Slack names the scope the method needs (https://docs.slack.dev/reference/methods: missing_scope).
  const { needed } = data as { needed?: unknown };
  if (data.error === "missing_scope" && typeof needed === "string") {
    return `:lock: ${grantScopesAdvice(needed.split(","), locale)}`;
  }
  return SLACK_PROBLEMS[data.error]?.(messagesFor(locale));
}

/** Through the request's response_url when it has one (commands, buttons), else ephemerally in the channel. */
async function tellUser(app: App, body: ListenerErrorArgs["body"], context: Context, text: string) {
  if ("response_url" in body && typeof body.response_url === "string") {
    const response = await fetch(body.response_url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ response_type: "ephemeral", replace_original: false, text }),
    });
    if (!response.ok) throw new Error(`response_url answered ${response.status}`);
    return;
  }
  if (body.type === "view_submission" && "view" in body) {
    await app.client.chat.postEphemeral({
      token: context.botToken,
      channel: channelOfModal(body.view.private_metadata),
      user: body.user.id,
      text,
    });
  }
}
