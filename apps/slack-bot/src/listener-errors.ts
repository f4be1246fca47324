import { describeFailure } from "@imagehub/chat-core";
import type { AnyMiddlewareArgs, App, Context, Logger } from "@slack/bolt";
import { ErrorCode, webApi } from "@slack/bolt";
import { channelOfModal } from "./blocks/generate-modal.blocks.js";
import { grantScopesAdvice } from "./slack-scopes.js";

/** Bolt's extended error handler arguments (App is created with extendedErrorHandler: true). */
interface ListenerErrorArgs {
  error: Error;
  logger: Logger;
  body: AnyMiddlewareArgs["body"];
  context: Context;
}

const SOMETHING_WENT_WRONG =
  ":boom: Something went wrong on the bot's side (it is logged); try again in a moment.";
/** The installation store has no token for the workspace (its data was lost, or the app was removed). */
const NOT_INSTALLED =
  ":electric_plug: imagehub is not installed in this workspace any more: an admin installs it again.";

/** Slack refusals a person can fix, and how. */
const SLACK_PROBLEMS: Record<string, string> = {
  not_in_channel: ":wave: I can't post in this channel yet: add me with `/invite @imagehub` first.",
  channel_not_found: ":wave: I can't see this channel: add me with `/invite @imagehub` first.",
  is_archived: "This channel is archived.",
};

/**
 * The one place listener errors end: the person who acted hears what they can do about it (imagehub's
 * refusals in chat-core's words, Slack's own, or that the bot failed); faults of the bot are logged.
 */
export function handleListenerErrors(app: App): void {
  app.error(async ({ error, logger, body, context }: ListenerErrorArgs) => {
    const cause = "original" in error && error.original instanceof Error ? error.original : error;
    const isNotInstalled = "code" in error && error.code === ErrorCode.AuthorizationError;
    const problem = isNotInstalled ? NOT_INSTALLED : (describeFailure(cause) ?? slackProblem(cause));
    if (problem === undefined) logger.error("listener failed:", cause);
    await tellUser(app, body, context, problem ?? SOMETHING_WENT_WRONG).catch((failure: unknown) =>
      logger.error("could not tell the user about a failure:", failure),
    );
  });
}

function slackProblem(error: Error): string | undefined {
  if (!("code" in error) || error.code !== webApi.ErrorCode.PlatformError) return undefined;
  const { data } = error as webApi.WebAPIPlatformError;
  // Slack names the scope the method needs (https://docs.slack.dev/reference/methods: missing_scope).
  const { needed } = data as { needed?: unknown };
  if (data.error === "missing_scope" && typeof needed === "string") {
    return `:lock: ${grantScopesAdvice(needed.split(","))}`;
  }
  return SLACK_PROBLEMS[data.error];
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
