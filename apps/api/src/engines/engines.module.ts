import { type DynamicModule, Module } from "@nestjs/common";
import type { AppConfig } from "../common/config.js";
import { BuiltinPromptOptimizer } from "./builtin-prompt-optimizer.js";
import { IMAGE_ENGINE, type ImageEngine } from "./image-engine.js";
import { LlmPromptOptimizer } from "./llm-prompt-optimizer.js";
import { MidjourneyEngine } from "./midjourney.engine.js";
import { OpenAiEngine } from "./openai.engine.js";
import { ProceduralEngine } from "./procedural.engine.js";
import { PROMPT_OPTIMIZER, type PromptOptimizer } from "./prompt-optimizer.js";
import { SdWebUiEngine } from "./sdwebui.engine.js";

/** The image engine and the prompt optimizer that configuration chose. */
@Module({})
export class EnginesModule {
  static forConfig(config: AppConfig): DynamicModule {
    const { generations } = config;
    const engines = {
      procedural: () => new ProceduralEngine({ imageDelayMs: generations.proceduralImageDelayMs }),
      openai: () => new OpenAiEngine(chosen(generations.openai), generations.engineCalls),
      sdwebui: () => new SdWebUiEngine(chosen(generations.sdwebui), generations.engineCalls),
      midjourney: () => new MidjourneyEngine(chosen(generations.midjourney), generations.engineCalls),
    } satisfies Record<AppConfig["generations"]["engine"], () => ImageEngine>;
    const optimizer = (): PromptOptimizer => {
      const settings = generations.promptOptimizer;
      const builtin = new BuiltinPromptOptimizer();
      return settings.kind === "llm"
        ? new LlmPromptOptimizer(settings, generations.engineCalls, builtin)
        : builtin;
    };
    return {
      module: EnginesModule,
      providers: [
        { provide: IMAGE_ENGINE, useFactory: engines[generations.engine] },
        { provide: PROMPT_OPTIMIZER, useFactory: optimizer },
      ],
      exports: [IMAGE_ENGINE, PROMPT_OPTIMIZER],
    };
  }
}

/** loadConfig sets the settings of the engine it chose: their absence would be a bug, not a configuration. */
function chosen<T>(settings: T | undefined): T {
  if (settings === undefined) throw new Error("the chosen image engine has no settings");
  return settings;
}
