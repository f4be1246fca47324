import {
  type CreateImageGenerationRequest,
  type GenerationParam,
  GenerationStatus,
  IMAGES_PER_GENERATION,
  type ImageGeneration,
} from "@imagehub/domain";
import { type ChatAction, encodeAction } from "./chat-actions.js";
import { TEMPLATE_CHOICES } from "./generate-request.js";

export type GenerationPhase = "queued" | "active" | "done" | "failed";

export interface ViewButton {
  id: string;
  label: string;
  action: ChatAction;
}

/** What a status message shows at each step, for both bots to render their own way. */
export interface GenerationView {
  title: string;
  prompt: string;
  /** e.g. ["format 16:9", "weather snowy", "avoid: text, logos", "optimized"]. */
  parameters: string[];
  phase: GenerationPhase;
  /** One line: "Queued", "Generating… 2/4", "Done", "Failed: <reason>". */
  status: string;
  imagesDone: number;
  /** The generation's images drawn so far (all 4 once Done), in order: its grid grows with them. */
  images: { number: number; imageId: string; previewUrl: string }[];
  /** Buy 1…4, U1…U4, V1…V4, Show all 4 and Again once Done; Retry after a failure. */
  buttons: ViewButton[];
}

/** The status message before the generation exists (it is created right after, pointing at it). */
export function queuedView(request: CreateImageGenerationRequest): GenerationView {
  return {
    title: request.name,
    prompt: request.prompt,
    parameters: describeParameters(request.params ?? [], request),
    phase: "queued",
    status: "Queued",
    imagesDone: 0,
    images: [],
    buttons: [],
  };
}

export function generationView(generation: ImageGeneration): GenerationView {
  const base = {
    title: generation.name,
    prompt: generation.prompt,
    parameters: describeParameters(generation.params, generation),
    imagesDone: generation.images.length,
    images: generation.images.map((image, index) => ({
      number: index + 1,
      imageId: image.id,
      previewUrl: image.url,
    })),
  };
  switch (generation.status) {
    case GenerationStatus.Done:
      return {
        ...base,
        phase: "done",
        status: "Done",
        buttons: [
          ...generation.images.map((image, index) =>
            button(
              { kind: "buy", imageId: image.id, imageNumber: index + 1, generationId: generation.id },
              `Buy ${index + 1}`,
            ),
          ),
          ...generation.images.map((image, index) =>
            button(
              { kind: "upscale", imageId: image.id, imageNumber: index + 1, generationId: generation.id },
              `U${index + 1}`,
            ),
          ),
          ...generation.images.map((_, index) =>
            button({ kind: "vary", generationId: generation.id, imageNumber: index + 1 }, `V${index + 1}`),
          ),
          button({ kind: "show", generationId: generation.id }, `Show all ${generation.images.length}`),
          button({ kind: "again", generationId: generation.id }, "Again"),
        ],
      };
    case GenerationStatus.Error:
      return {
        ...base,
        phase: "failed",
        status: `Failed: ${generation.failureReason ?? "the generation could not be made"}`,
        buttons: [button({ kind: "retry", generationId: generation.id }, "Retry")],
      };
    case GenerationStatus.Processing:
      return {
        ...base,
        phase: "active",
        status: `Generating… ${generation.images.length}/${IMAGES_PER_GENERATION}`,
        buttons: [],
      };
    default:
      return { ...base, phase: "queued", status: "Queued", buttons: [] };
  }
}

/** The rank of a generation that has ended (Done or Error). */
export const FINAL_RANK = IMAGES_PER_GENERATION + 2;

/**
 * How far a generation has got, for ordering webhook events that may arrive out of order: a view is
 * only replaced by one that is further along.
 */
export function progressRank(generation: Pick<ImageGeneration, "status" | "images">): number {
  switch (generation.status) {
    case GenerationStatus.Done:
    case GenerationStatus.Error:
      return FINAL_RANK;
    case GenerationStatus.Processing:
      return 1 + generation.images.length;
    default:
      return 0;
  }
}

const PARAMETER_LABELS: Record<string, (value: string) => string> = {
  format: (value) => `format ${value}`,
  weather: (value) => `weather ${value}`,
  Time: (value) => `time ${value}`,
  time: (value) => `time ${value}`,
  templatePrompt: (value) =>
    `template ${Object.entries(TEMPLATE_CHOICES).find(([, name]) => name === value)?.[0] ?? value}`,
  chaos: (value) => `chaos ${value}`,
  stylize: (value) => `stylize ${value}`,
  camera: (value) => `camera: ${value}`,
  interdiction: (value) => `avoid: ${value}`,
};

function describeParameters(
  params: GenerationParam[],
  settings: { mode: string; optimizePrompt?: boolean | undefined; processMode?: string | undefined },
): string[] {
  return [
    ...(settings.mode === "advanced" ? ["advanced"] : []),
    ...params.map(({ name, value }) => PARAMETER_LABELS[name]?.(value) ?? `${name} ${value}`),
    ...(settings.optimizePrompt ? ["optimized"] : []),
    // Relax is what every account gets unless it asked for fast.
    ...(settings.processMode === "fast" ? ["fast"] : []),
  ];
}

function button(action: ChatAction, label: string): ViewButton {
  return { id: encodeAction(action), label, action };
}
