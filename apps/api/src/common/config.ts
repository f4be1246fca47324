import { z } from "zod";
import { CatalogueSection, LinksSection } from "./config/catalogue.section.js";
import { GenerationsSection } from "./config/generations.section.js";
import { RateLimitsSection } from "./config/rate-limits.section.js";
import {
  HttpSection,
  MetricsSection,
  QueueDashboardSection,
  ServerSection,
} from "./config/server.section.js";
import { StorageSection } from "./config/storage.section.js";
import { MailSection, WebAreaSection } from "./config/web-area.section.js";
import { WebhooksSection } from "./config/webhooks.section.js";

export type { ImageEngineName } from "@imagehub/domain";
export { OPENAI_IMAGE_QUALITIES } from "./config/generations.section.js";
export { DEFAULT_REDIS_URL, ROLES, type Role } from "./config/server.section.js";

/**
 * Every environment variable imagehub reads (`.env.example` documents each one), by the section of the
 * configuration that reads it; each section maps its variables to its settings. The server section's
 * settings are the configuration's top level.
 */
const SECTIONS = {
  server: ServerSection,
  http: HttpSection,
  storage: StorageSection,
  links: LinksSection,
  catalogue: CatalogueSection,
  generations: GenerationsSection,
  webhooks: WebhooksSection,
  rateLimits: RateLimitsSection,
  metrics: MetricsSection,
  queueDashboard: QueueDashboardSection,
  webArea: WebAreaSection,
  mail: MailSection,
};

export const AppConfigSchema = z
  .object(SECTIONS)
  .transform(({ server, ...sections }) => ({ ...server, ...sections }));

export type AppConfig = z.output<typeof AppConfigSchema>;
export type GenerationsConfig = AppConfig["generations"];
export type EngineCallPolicy = GenerationsConfig["engineCalls"];
export type OpenAiEngineConfig = NonNullable<GenerationsConfig["openai"]>;
export type SdWebUiEngineConfig = NonNullable<GenerationsConfig["sdwebui"]>;
export type MidjourneyEngineConfig = NonNullable<GenerationsConfig["midjourney"]>;
export type ComfyUiEngineConfig = NonNullable<GenerationsConfig["comfyui"]>;
export type PromptOptimizerConfig = GenerationsConfig["promptOptimizer"];
export type LocalStorageConfig = Extract<AppConfig["storage"], { driver: "local" }>;
export type S3StorageConfig = Extract<AppConfig["storage"], { driver: "s3" }>;

/** Variables whose empty value is a value ("none"), not an unset variable. */
const EMPTY_IS_A_VALUE = new Set(["MODERATION_REFUSED_TERMS"]);

const VARIABLES = [...new Set(Object.values(SECTIONS).flatMap((section) => Object.keys(section.in.shape)))];

export class ConfigError extends Error {}

/** Parses the environment once; a bad variable stops start-up with a message naming it. */
export function loadConfig(env: NodeJS.ProcessEnv): AppConfig {
  const variables = pickDefined(env, VARIABLES);
  const input = Object.fromEntries(Object.keys(SECTIONS).map((name) => [name, variables]));
  const parsed = AppConfigSchema.safeParse(input);
  if (!parsed.success) {
    // The problems between variables (VariableProblem, "custom") only once each variable reads right; a
    // variable more than one section reads has its problem reported once. Paths are [section, variable].
    const { issues } = parsed.error;
    const problems = (
      issues.every((issue) => issue.code === "custom")
        ? issues
        : issues.filter((issue) => issue.code !== "custom")
    ).map((issue) =>
      issue.path.length > 1 ? `${String(issue.path.at(-1))}: ${issue.message}` : issue.message,
    );
    throw new ConfigError(`Invalid configuration: ${[...new Set(problems)].join("; ")}`);
  }
  return parsed.data;
}

/** Empty variables count as unset, as in most shells' `VAR= command`. */
function pickDefined(env: NodeJS.ProcessEnv, names: string[]): Record<string, string> {
  return Object.fromEntries(
    names.flatMap((name) => {
      const value = env[name];
      return value || (value === "" && EMPTY_IS_A_VALUE.has(name)) ? [[name, value]] : [];
    }),
  );
}

export const APP_CONFIG = Symbol("AppConfig");
