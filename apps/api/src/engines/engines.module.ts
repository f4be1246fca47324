import { type DynamicModule, Module } from "@nestjs/common";
import type { AppConfig } from "../common/config.js";
import { BuiltinPromptOptimizer } from "./builtin-prompt-optimizer.js";
import { ComfyUiEngine } from "./comfyui.engine.js";
import type { ImageEngine } from "./image-engine.js";
import { ImageEngines } from "./image-engines.js";
import { LlmPromptOptimizer } from "./llm-prompt-optimizer.js";
import { MidjourneyEngine } from "./midjourney.engine.js";
import { OpenAiEngine } from "./openai.engine.js";
import { ProceduralEngine } from "./procedural.engine.js";
import { PROMPT_OPTIMIZER, type PromptOptimizer } from "./prompt-optimizer.js";
import { SdWebUiEngine } from "./sdwebui.engine.js";

/** The image engines and the prompt optimizer that configuration chose. */
@Module({})
export class EnginesModule {
  static forConfig(config: AppConfig): DynamicModule {
    const { generations } = config;
    const engines = {
      procedural: () => new ProceduralEngine({ imageDelayMs: generations.proceduralImageDelayMs }),
      openai: () => new OpenAiEngine(chosen(generations.openai), generations.engineCalls),
      sdwebui: () => new SdWebUiEngine(chosen(generations.sdwebui), generations.engineCalls),
      midjourney: () => new MidjourneyEngine(chosen(generations.midjourney), generations.engineCalls),
      comfyui: () => new ComfyUiEngine(chosen(generations.comfyui), generations.engineCalls),
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
        {
          provide: ImageEngines,
          useFactory: () =>
            new ImageEngines(
              generations.engines.map((name) => engines[name]()),
              generations.engineConcurrency,
            ),
        },
        { provide: PROMPT_OPTIMIZER, useFactory: optimizer },
      ],
      exports: [ImageEngines, PROMPT_OPTIMIZER],
    };
  }
}

/** loadConfig sets the settings of the engines configured: their absence would be a bug, not a configuration. */
function chosen<T>(settings: T | undefined): T {
  if (settings === undefined) throw new Error("the chosen image engine has no settings");
  return settings;
}
