import type { EngineRequest } from "@imagehub/domain";

/** Rewrites a simple-mode description into a fuller one before generation (`optimizePrompt`). */
export interface PromptOptimizer {
  /**
   * Returns the rewritten description alone: the caller keeps the original, and puts additionalPrompt
   * before the result itself. `description` is the description without additionalPrompt; `request` gives
   * the settings to write about (time of day, weather, camera, aspect ratio), and its own `description`
   * must not be used, as it may already hold additionalPrompt.
   */
  optimize(input: { description: string; request: EngineRequest }): Promise<string>;
}

export const PROMPT_OPTIMIZER = Symbol("PromptOptimizer");
