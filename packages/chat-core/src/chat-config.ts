import { z } from "zod";
import { LOG_LEVELS, type LogLevel } from "./bot-logger.js";

/** A comma-separated list, each item trimmed, empty ones dropped. */
const commaList = z
  .string()
  .default("")
  .transform((text) =>
    text
      .split(",")
      .map((item) => item.trim())
      .filter((item) => item !== ""),
  );

/** Environment variables both bots read (each adds its platform's own). */
export const ChatEnvironmentSchema = z.object({
  IMAGEHUB_BASE_URL: z.url().default("http://localhost:3000"),
  IMAGEHUB_API_KEY: z.string().min(1).optional(),
  /** The teams (Discord server ids, Slack workspace ids) the operator opts in to IMAGEHUB_API_KEY. */
  BOT_DEFAULT_KEY_TEAMS: commaList,
  BOT_PUBLIC_URL: z.url({ protocol: /^https?$/ }),
  BOT_PORT: z.coerce.number().int().min(0).max(65_535).default(3100),
  BOT_ENCRYPTION_KEY: z.string().min(1),
  BOT_DATA_DIR: z.string().min(1).default(".data/bot"),
  /** The bots' state in PostgreSQL (imagehub's server will do), shared by replicas; else one JSON file. */
  BOT_DATABASE_URL: z.url({ protocol: /^postgres(ql)?$/ }).optional(),
  BOT_DATABASE_SCHEMA: z
    .string()
    .regex(/^[a-z_][a-z0-9_]*$/, "a schema name: lower-case letters, digits and _")
    .default("imagehub_bots"),
  BOT_USER_COOLDOWN_SECONDS: z.coerce.number().min(0).default(30),
  BOT_MAX_RUNNING_PER_TEAM: z.coerce.number().int().min(1).default(3),
  /**
   * Days a finished generation's status-message record is kept; its buttons work after, from imagehub.
   * Longer than imagehub goes on redelivering an event (about a day), so a late delivery finds the record
   * that keeps its message from going back.
   */
  BOT_MESSAGE_RETENTION_DAYS: z.coerce.number().positive().default(7),
  BOT_LOG_LEVEL: z.enum(LOG_LEVELS).default("info"),
});

export interface ChatConfig {
  apiBaseUrl: string;
  /** Serves the teams of `defaultKeyTeams` that have not connected their own key. */
  defaultApiKey: string | undefined;
  /** Opted in to the default key by the operator; every other team connects its own. */
  defaultKeyTeams: string[];
  /** Where imagehub reaches this bot (its webhook receiver listens on `port`). */
  publicUrl: string;
  port: number;
  encryptionKey: string;
  dataDir: string;
  /** Set: the state in PostgreSQL, in this schema; unset: one JSON file in dataDir (one process). */
  database: { url: string; schema: string } | undefined;
  limits: { userCooldownSeconds: number; maxRunningPerTeam: number };
  /** Days a status message's record is kept once its generation ended. */
  messageRetentionDays: number;
  logLevel: LogLevel;
}

/** Parses the environment once, with an error naming every variable that is missing or wrong. */
export function parseEnvironment<S extends z.ZodType>(schema: S, env: NodeJS.ProcessEnv): z.output<S> {
  const parsed = schema.safeParse(env);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`);
  throw new Error(`invalid configuration:\n  ${problems.join("\n  ")}`);
}

export function chatConfigOf(values: z.output<typeof ChatEnvironmentSchema>): ChatConfig {
  return {
    apiBaseUrl: values.IMAGEHUB_BASE_URL,
    defaultApiKey: values.IMAGEHUB_API_KEY,
    defaultKeyTeams: values.BOT_DEFAULT_KEY_TEAMS,
    publicUrl: values.BOT_PUBLIC_URL,
    port: values.BOT_PORT,
    encryptionKey: values.BOT_ENCRYPTION_KEY,
    dataDir: values.BOT_DATA_DIR,
    database: values.BOT_DATABASE_URL
      ? { url: values.BOT_DATABASE_URL, schema: values.BOT_DATABASE_SCHEMA }
      : undefined,
    limits: {
      userCooldownSeconds: values.BOT_USER_COOLDOWN_SECONDS,
      maxRunningPerTeam: values.BOT_MAX_RUNNING_PER_TEAM,
    },
    messageRetentionDays: values.BOT_MESSAGE_RETENTION_DAYS,
    logLevel: values.BOT_LOG_LEVEL,
  };
}
