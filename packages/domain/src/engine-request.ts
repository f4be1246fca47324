import type { TEMPLATE_PROMPTS, TIMES, WEATHERS } from "./generation-params.js";

/**
 * What every image engine receives: both generation modes compile to this one representation
 * (see prompt-compiler.ts), and it renders back to the equivalent third-party command text.
 */
export interface EngineRequest {
  /** `additionalPrompt` (if any) then the description, possibly rewritten by optimizePrompt. */
  description: string;
  /** Things that must not appear (`--no`, simple-mode `interdiction`). */
  negative: string[];
  /** "W:H" in lowest terms, e.g. "16:9"; "1:1" by default. */
  aspectRatio: string;
  /** 0–100: how different the 4 images are from one another; 0 by default. */
  chaos: number;
  /** 0–1000: how strongly an artistic style is applied; 100 by default. */
  stylize: number;
  /** 0–4294967295; absent: the engine derives one from the request. */
  seed: number | undefined;
  /** Quality wording from `templatePrompt`, e.g. "high quality realistic photo". */
  qualityHints: string[];
  template: (typeof TEMPLATE_PROMPTS)[number] | undefined;
  timeOfDay: (typeof TIMES)[number] | undefined;
  weather: (typeof WEATHERS)[number] | undefined;
  camera: string | undefined;
  /** Camera angle in words (simple-mode `angle`). */
  angle: string | undefined;
  /** A photographer whose style to follow (simple-mode `photographe`). */
  photographer: string | undefined;
  /**
   * An image to start from (simple-mode `fromImageUrl`): the init image of sdwebui and comfyui, the input
   * image of openai's edits, an image prompt for Midjourney; the procedural engine draws from words alone.
   */
  imagePrompt: string | undefined;
  /** Advanced-mode flags without a simple-mode equivalent, kept so the command text round-trips. */
  advanced: AdvancedFlags;
}

export interface AdvancedFlags {
  weird?: number;
  quality?: 1 | 2 | 4;
  experimental?: number;
  imageWeight?: number;
  styleReference?: string;
  styleWeight?: number;
  version?: string;
  niji?: string | true;
  tile?: true;
  raw?: true;
}
