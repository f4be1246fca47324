import {
  type CreateImageGenerationRequest,
  type GenerationParam,
  GenerationStatus,
  IMAGES_PER_GENERATION,
  type ImageGeneration,
} from "@imagehub/domain";
import { type ChatAction, encodeAction } from "./chat-actions.js";
import { TEMPLATE_CHOICES } from "./generate-request.js";
import type { Messages } from "./i18n/en.js";
import { DEFAULT_LOCALE, type Locale, messagesFor } from "./i18n/locale.js";

export type GenerationPhase = "queued" | "active" | "done" | "failed";

export interface ViewButton {
  id: string;
  label: string;
  action: ChatAction;
}

/** What a status message shows at each step, in its requester's language, for both bots to render their own way. */
export interface GenerationView {
  title: string;
  prompt: string;
  /** e.g. ["format 16:9", "weather snowy", "avoid: text, logos", "optimized"]. */
  parameters: string[];
  phase: GenerationPhase;
  /** One line: "Queued", "Generating… 2/4", "Done", "Failed: <reason>". */
  status: string;
  /** Why a failed generation failed, as its status line says after "Failed:". */
  failureReason?: string;
  /** The language the view is worded in, for the rest of the message to be. */
  locale: Locale;
  imagesDone: number;
  /** The generation's images drawn so far (all 4 once Done), in order: its grid grows with them. */
  images: { number: number; imageId: string; previewUrl: string }[];
  /** Buy 1…4, U1…U4, V1…V4, Show all 4 and Again once Done; Retry after a failure. */
  buttons: ViewButton[];
}

/** The status message before the generation exists (it is created right after, pointing at it). */
export function queuedView(request: CreateImageGenerationRequest, locale = DEFAULT_LOCALE): GenerationView {
  const messages = messagesFor(locale);
  return {
    title: request.name,
    prompt: request.prompt,
    parameters: describeParameters(messages, request.params ?? [], request),
    phase: "queued",
    status: messages.view.queued,
    locale,
    imagesDone: 0,
    images: [],
    buttons: [],
  };
}

export function generationView(generation: ImageGeneration, locale = DEFAULT_LOCALE): GenerationView {
  const messages = messagesFor(locale);
  const { view } = messages;
  const base = {
    title: generation.name,
    prompt: generation.prompt,
    parameters: describeParameters(messages, generation.params, generation),
    locale,
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
        status: view.done,
        buttons: [
          ...generation.images.map((image, index) =>
            button(
              { kind: "buy", imageId: image.id, imageNumber: index + 1, generationId: generation.id },
              view.buy(index + 1),
            ),
          ),
          ...generation.images.map((image, index) =>
            button(
              { kind: "upscale", imageId: image.id, imageNumber: index + 1, generationId: generation.id },
              view.upscale(index + 1),
            ),
          ),
          ...generation.images.map((_, index) =>
            button(
              { kind: "vary", generationId: generation.id, imageNumber: index + 1 },
              view.vary(index + 1),
            ),
          ),
          button({ kind: "show", generationId: generation.id }, view.showAll(generation.images.length)),
          button({ kind: "again", generationId: generation.id }, view.again),
        ],
      };
    case GenerationStatus.Error: {
      const failureReason = generation.failureReason ?? view.failedUnknown;
      return {
        ...base,
        phase: "failed",
        status: view.failed(failureReason),
        failureReason,
        buttons: [button({ kind: "retry", generationId: generation.id }, view.retry)],
      };
    }
    case GenerationStatus.Processing:
      return {
        ...base,
        phase: "active",
        status: view.generating(generation.images.length, IMAGES_PER_GENERATION),
        buttons: [],
      };
    default:
      return { ...base, phase: "queued", status: view.queued, buttons: [] };
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

/** The label of each API parameter, by the chat option a person typed. */
function parameterLabels({ parameters }: Messages["view"]): Record<string, (value: string) => string> {
  return {
    format: parameters.format,
    weather: parameters.weather,
    Time: parameters.time,
    time: parameters.time,
    templatePrompt: (value) =>
      parameters.template(Object.entries(TEMPLATE_CHOICES).find(([, name]) => name === value)?.[0] ?? value),
    chaos: parameters.chaos,
    stylize: parameters.stylize,
    camera: parameters.camera,
    interdiction: parameters.avoid,
  };
}

function describeParameters(
  { view }: Messages,
  params: GenerationParam[],
  settings: { mode: string; optimizePrompt?: boolean | undefined; processMode?: string | undefined },
): string[] {
  const labels = parameterLabels(view);
  return [
    ...(settings.mode === "advanced" ? [view.parameters.advanced] : []),
    ...params.map(({ name, value }) => labels[name]?.(value) ?? `${name} ${value}`),
    ...(settings.optimizePrompt ? [view.parameters.optimized] : []),
    // Relax is what every account gets unless it asked for fast.
    ...(settings.processMode === "fast" ? [view.parameters.fast] : []),
  ];
}

function button(action: ChatAction, label: string): ViewButton {
  return { id: encodeAction(action), label, action };
}
