import { type DynamicModule, Module } from "@nestjs/common";
import type { AppConfig } from "../common/config.js";
import { BuiltinPromptOptimizer } from "../generations/builtin-prompt-optimizer.js";
import { PROMPT_OPTIMIZER } from "../generations/prompt-optimizer.js";
import { IMAGE_ENGINE } from "./image-engine.js";
import { ProceduralEngine } from "./procedural.engine.js";

/** The image engine and the prompt optimizer that configuration chose. */
@Module({})
export class EnginesModule {
  static forConfig(config: AppConfig): DynamicModule {
    const engines = {
      procedural: () => new ProceduralEngine({ imageDelayMs: config.generations.proceduralImageDelayMs }),
    } satisfies Record<AppConfig["generations"]["engine"], () => unknown>;
    return {
      module: EnginesModule,
      providers: [
        { provide: IMAGE_ENGINE, useFactory: engines[config.generations.engine] },
        { provide: PROMPT_OPTIMIZER, useClass: BuiltinPromptOptimizer },
      ],
      exports: [IMAGE_ENGINE, PROMPT_OPTIMIZER],
    };
  }
}
