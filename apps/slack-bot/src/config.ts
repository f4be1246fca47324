import { type ChatConfig, ChatEnvironmentSchema, chatConfigOf, parseEnvironment } from "@imagehub/chat-core";
import { LogLevel } from "@slack/bolt";
import { z } from "zod";

const booleanFlag = z
  .enum(["true", "false", "1", "0"])
  .transform((value) => value === "true" || value === "1");

/** The shared chat variables plus Slack's own; README "Slack" lists them all. */
export const SlackEnvironmentSchema = ChatEnvironmentSchema.extend({
  /** Checks that HTTP requests come from Slack (Basic Information → Signing Secret). */
  SLACK_SIGNING_SECRET: z.string().min(1).optional(),
  /** One workspace: the bot token of the app installed there (xoxb-…). */
  SLACK_BOT_TOKEN: z.string().startsWith("xoxb-").optional(),
  /** Many workspaces: Slack's OAuth installation flow (Basic Information → App Credentials). */
  SLACK_CLIENT_ID: z.string().min(1).optional(),
  SLACK_CLIENT_SECRET: z.string().min(1).optional(),
  /** Signs the OAuth state parameter; any long random string. */
  SLACK_STATE_SECRET: z.string().min(16).optional(),
  /** Socket Mode instead of HTTP: an app-level token with connections:write (xapp-…). */
  SLACK_APP_TOKEN: z.string().startsWith("xapp-").optional(),
  /** Another Slack Web API address (a proxy, or a fake in tests). */
  SLACK_API_URL: z.url().optional(),
  /**
   * true when Slack's servers can fetch links (imagehub's PUBLIC_BASE_URL and BOT_PUBLIC_URL on the
   * internet): the final message's grid is at the bot's own link. Otherwise the bot uploads it.
   */
  SLACK_IMAGES_PUBLIC: booleanFlag.default(false),
  SLACK_LOG_LEVEL: z.enum(LogLevel).default(LogLevel.INFO),
})
  .refine((values) => values.SLACK_APP_TOKEN !== undefined || values.SLACK_SIGNING_SECRET !== undefined, {
    path: ["SLACK_SIGNING_SECRET"],
    message: "required in HTTP mode (without SLACK_APP_TOKEN)",
    when: namedEveryProblem,
  })
  .refine((values) => (values.SLACK_BOT_TOKEN === undefined) !== !hasOauthValue(values), {
    path: ["SLACK_BOT_TOKEN"],
    message:
      "give either SLACK_BOT_TOKEN (one workspace) or SLACK_CLIENT_ID, SLACK_CLIENT_SECRET and SLACK_STATE_SECRET (OAuth installation)",
    when: namedEveryProblem,
  })
  .refine((values) => !hasOauthValue(values) || values.IMAGEHUB_API_KEY === undefined, {
    path: ["IMAGEHUB_API_KEY"],
    message:
      "not with OAuth distribution: any workspace may install the app, so each connects its own key with /imagehub connect",
    when: namedEveryProblem,
  })
  .refine((values) => !hasOauthValue(values) || oauthValues(values) !== undefined, {
    path: ["SLACK_CLIENT_ID"],
    message: "SLACK_CLIENT_ID, SLACK_CLIENT_SECRET and SLACK_STATE_SECRET go together",
    when: namedEveryProblem,
  });

export type SlackAuth =
  | { kind: "single-workspace"; botToken: string }
  | { kind: "oauth"; clientId: string; clientSecret: string; stateSecret: string };

export interface SlackConfig {
  chat: ChatConfig;
  auth: SlackAuth;
  /** Set: Socket Mode; the webhook receiver and the OAuth pages still listen on BOT_PORT. */
  appToken: string | undefined;
  /** Required in HTTP mode. */
  signingSecret: string | undefined;
  apiUrl: string | undefined;
  isImagesPublic: boolean;
  logLevel: LogLevel;
}

/** Reads the environment once; the error names every variable that is missing or wrong. */
export function loadSlackConfig(env: NodeJS.ProcessEnv): SlackConfig {
  const values = parseEnvironment(SlackEnvironmentSchema, env);
  const oauth = oauthValues(values);
  return {
    chat: chatConfigOf(values),
    auth: oauth
      ? { kind: "oauth", ...oauth }
      : { kind: "single-workspace", botToken: values.SLACK_BOT_TOKEN as string },
    appToken: values.SLACK_APP_TOKEN,
    signingSecret: values.SLACK_SIGNING_SECRET,
    apiUrl: values.SLACK_API_URL,
    isImagesPublic: values.SLACK_IMAGES_PUBLIC,
    logLevel: values.SLACK_LOG_LEVEL,
  };
}

/** The Slack checks run even when another variable is wrong, so that one start names every problem. */
function namedEveryProblem(): boolean {
  return true;
}

interface OauthVariables {
  SLACK_CLIENT_ID?: string | undefined;
  SLACK_CLIENT_SECRET?: string | undefined;
  SLACK_STATE_SECRET?: string | undefined;
}

function hasOauthValue(values: OauthVariables): boolean {
  return [values.SLACK_CLIENT_ID, values.SLACK_CLIENT_SECRET, values.SLACK_STATE_SECRET].some(
    (value) => value !== undefined,
  );
}

function oauthValues(values: OauthVariables) {
  const {
    SLACK_CLIENT_ID: clientId,
    SLACK_CLIENT_SECRET: clientSecret,
    SLACK_STATE_SECRET: stateSecret,
  } = values;
  return clientId && clientSecret && stateSecret ? { clientId, clientSecret, stateSecret } : undefined;
}
