import type { EngineRequest } from "@imagehub/domain";
import { Logger } from "@nestjs/common";
import { z } from "zod";
import type { EngineCallPolicy, PromptOptimizerConfig } from "../common/config.js";
import { clip } from "./builtin-prompt-optimizer.js";
import { EngineClient } from "./engine.client.js";
import type { PromptOptimizer } from "./prompt-optimizer.js";

/** The rewrite's length bound: asked of the model, and enforced on what it answers. */
export const OPTIMIZED_MAX_LENGTH = 800;
/**
 * One retry at most: the rewrite is a nicety with a fallback, and the generation waits for it. Each try
 * has the optimizer's own time limit.
 */
const LLM_RETRIES = 1;

export const OPTIMIZER_SYSTEM_PROMPT = [
  "You rewrite short descriptions of pictures into fuller prompts for an image generator.",
  "Keep the user's subject and every element, person, place, colour and style they name: never replace or drop one, and add nothing that contradicts them.",
  "Write in the language of the description: a French description gets a French prompt.",
  "Add concrete visual detail: materials and textures, light, atmosphere, composition, lens and framing.",
  "Follow the settings given (style, time of day, weather, camera, frame), and never mention what is to be left out.",
  `Answer with the rewritten description only: one paragraph of plain text, without quotes, title or comment, at most ${OPTIMIZED_MAX_LENGTH} characters.`,
].join("\n");

const ChatAnswerSchema = z.object({
  choices: z.tuple([z.object({ message: z.object({ content: z.string() }) })], z.unknown()),
});

type LlmSettings = Extract<PromptOptimizerConfig, { kind: "llm" }>;

/**
 * The optimizer backed by an OpenAI-compatible chat-completions API (OpenAI, a gateway, a local server).
 * When the LLM cannot be reached, refuses or answers nothing usable, `fallback` (the built-in rewriter)
 * rewrites the description instead, with a warning in the log.
 */
export class LlmPromptOptimizer implements PromptOptimizer {
  private readonly logger = new Logger(LlmPromptOptimizer.name);
  private readonly service: EngineClient;

  constructor(
    private readonly settings: LlmSettings,
    calls: EngineCallPolicy,
    private readonly fallback: PromptOptimizer,
  ) {
    this.service = new EngineClient({
      describedAs: "the prompt optimizer's LLM",
      baseUrl: settings.baseUrl,
      headers: settings.apiKey ? { authorization: `Bearer ${settings.apiKey}` } : {},
      calls: { ...calls, requestTimeoutMs: settings.timeoutMs, retries: LLM_RETRIES },
    });
  }

  async optimize(input: { description: string; request: EngineRequest }): Promise<string> {
    try {
      const answer = await this.service.json(
        {
          method: "POST",
          path: "/chat/completions",
          body: {
            model: this.settings.model,
            messages: [
              { role: "system", content: OPTIMIZER_SYSTEM_PROMPT },
              { role: "user", content: userMessageFor(input) },
            ],
          },
        },
        ChatAnswerSchema,
      );
      const rewritten = clip(tidy(answer.choices[0].message.content), OPTIMIZED_MAX_LENGTH);
      if (rewritten === "") throw this.service.unreadable("an empty rewrite");
      return rewritten;
    } catch (error) {
      this.logger.warn(
        `${(error as Error).message}; the built-in rewriter optimizes the description instead`,
      );
      return this.fallback.optimize(input);
    }
  }
}

/** The description, and the settings the rewrite should follow; `request.description` may hold more. */
function userMessageFor({ description, request }: { description: string; request: EngineRequest }): string {
  const settings = [
    request.qualityHints.length > 0 && `style: ${request.qualityHints.join(", ")}`,
    request.timeOfDay && `time of day: ${request.timeOfDay}`,
    request.weather && `weather: ${request.weather}`,
    request.camera && `camera: ${request.camera}`,
    `frame: ${request.aspectRatio}`,
    request.negative.length > 0 && `left out: ${request.negative.join(", ")}`,
  ].filter((setting): setting is string => typeof setting === "string");
  return `Description: ${description}\nSettings: ${settings.join("; ")}`;
}

/** One line, without the quotes models like to wrap answers in. */
function tidy(text: string): string {
  return text
    .replace(/\s+/g, " ")
    .trim()
    .replace(/^["'“«]+\s*|\s*["'”»]+$/g, "");
}
