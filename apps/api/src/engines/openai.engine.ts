import { type EngineRequest, IMAGES_PER_GENERATION, renderDescription } from "@imagehub/domain";
import { z } from "zod";
import type { EngineCallPolicy, OpenAiEngineConfig } from "../common/config.js";
import { dimensionsFor } from "./aspect-ratio.js";
import { type EngineAnswer, EngineClient } from "./engine.client.js";
import {
  DESCRIPTION_NOT_ACCEPTED,
  endQuietlyOnAbort,
  type GeneratedImage,
  type GenerateOptions,
  type ImageEngine,
  ImageEngineError,
  type ImagePrompt,
} from "./image-engine.js";
import { toStoredJpeg } from "./stored-image.js";

const DESCRIBED_AS = "the image engine (openai)";

/** The sizes the gpt-image-1 models draw; any other ratio is cropped out of the closest one. */
const SIZES = [
  { width: 1024, height: 1024 },
  { width: 1536, height: 1024 },
  { width: 1024, height: 1536 },
] as const;

const ImagesAnswerSchema = z.object({
  data: z.array(z.object({ b64_json: z.string().min(1) })).length(IMAGES_PER_GENERATION, "expected 4 images"),
});

const ErrorAnswerSchema = z.object({
  error: z.object({ code: z.string().nullish(), type: z.string().nullish(), message: z.string().nullish() }),
});
/** Models without the edits endpoint: they draw from words alone. */
const TEXT_ONLY_MODELS = /^dall-e-3/;

const REFUSED_DESCRIPTION_CODES = ["moderation_blocked", "content_policy_violation"];
const SPENT_QUOTA_CODES = ["insufficient_quota", "billing_hard_limit_reached"];

/**
 * The OpenAI Images API (`POST /images/generations`, gpt-image-1 family), or a gateway that speaks it: the
 * 4 images in one call, so they come together at the end, as base64 PNGs turned into JPEGs cropped to the
 * ratio asked for. With an image prompt, `POST /images/edits` draws from it as its input image, for the
 * models that have that endpoint. The API has no field for what the request's flags say: see
 * openAiPromptFor.
 */
export class OpenAiEngine implements ImageEngine {
  readonly name = "openai";
  private readonly service: EngineClient;

  readonly takesImagePrompt: boolean;

  constructor(
    private readonly settings: OpenAiEngineConfig,
    calls: EngineCallPolicy,
  ) {
    this.takesImagePrompt = !TEXT_ONLY_MODELS.test(settings.model);
    this.service = new EngineClient({
      describedAs: DESCRIBED_AS,
      baseUrl: settings.baseUrl,
      headers: { authorization: `Bearer ${settings.apiKey}` },
      calls,
    });
  }

  modelFor(): string {
    return this.settings.model;
  }

  generate(request: EngineRequest, { signal, imagePrompt }: GenerateOptions): AsyncIterable<GeneratedImage> {
    return endQuietlyOnAbort(signal, this.draw(request, imagePrompt, signal));
  }

  private async *draw(
    request: EngineRequest,
    imagePrompt: ImagePrompt | undefined,
    signal: AbortSignal,
  ): AsyncIterable<GeneratedImage> {
    if (request.imagePrompt && !this.takesImagePrompt) {
      throw new ImageEngineError(`${DESCRIBED_AS} model ${this.settings.model} takes no image prompt`);
    }
    const size = openAiSizeFor(request.aspectRatio);
    const fields = {
      model: this.settings.model,
      prompt: openAiPromptFor(request, size),
      n: IMAGES_PER_GENERATION,
      size: `${size.width}x${size.height}`,
      ...(this.settings.quality && { quality: this.settings.quality }),
    };
    const answer = await this.service.json(
      imagePrompt
        ? {
            method: "POST",
            path: "/images/edits",
            form: editForm(fields, imagePrompt),
            signal,
            explain: explainOpenAiRefusal,
          }
        : {
            method: "POST",
            path: "/images/generations",
            body: fields,
            signal,
            explain: explainOpenAiRefusal,
          },
      ImagesAnswerSchema,
    );
    for (const [index, { b64_json }] of answer.data.entries()) {
      const image = await toStoredJpeg(Buffer.from(b64_json, "base64"), request.aspectRatio).catch(() => {
        throw this.service.unreadable(`image ${index + 1} is not a picture`);
      });
      // The API takes no seed: the request's is kept for the record.
      yield { index, ...image, seed: request.seed ?? 0 };
    }
  }
}

/** The edits endpoint's multipart form: the fields as text, the image prompt as its input image. */
function editForm(fields: Record<string, string | number>, imagePrompt: ImagePrompt): FormData {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.set(name, String(value));
  const extension = imagePrompt.mimeType.slice("image/".length);
  form.set(
    "image",
    new Blob([imagePrompt.bytes], { type: imagePrompt.mimeType }),
    `image-prompt.${extension}`,
  );
  return form;
}

/** The size whose shape is closest to the ratio asked for, so that cropping loses the least. */
export function openAiSizeFor(aspectRatio: string): { width: number; height: number } {
  const { width, height } = dimensionsFor(aspectRatio, 1536);
  const distance = (size: { width: number; height: number }) =>
    Math.abs(Math.log(size.width / size.height) - Math.log(width / height));
  return SIZES.reduce((closest, size) => (distance(size) < distance(closest) ? size : closest));
}

/**
 * The request in one text: the description with its settings in words (renderDescription), then a
 * framing sentence when the picture will be cropped to another ratio than the size drawn, then what to
 * leave out. Seed, chaos, stylize and the other Midjourney flags have no equivalent and are left out.
 */
export function openAiPromptFor(request: EngineRequest, size: { width: number; height: number }): string {
  const { width, height } = dimensionsFor(request.aspectRatio, Math.max(size.width, size.height));
  const sentences = [
    renderDescription(request),
    (width !== size.width || height !== size.height) &&
      `Composed for a ${request.aspectRatio} frame, the subject well inside it`,
    request.negative.length > 0 && `Leave out: ${request.negative.join(", ")}`,
  ].filter((sentence): sentence is string => typeof sentence === "string");
  return `${sentences.map((sentence) => sentence.replace(/[\s.]+$/, "")).join(". ")}.`;
}

/** Safety refusals and a spent quota or billing limit: permanent, whatever their HTTP status (400, 429). */
function explainOpenAiRefusal({ body }: EngineAnswer): string | undefined {
  const parsed = ErrorAnswerSchema.safeParse(body);
  if (!parsed.success) return undefined;
  const { code, type, message } = parsed.data.error;
  const kinds = [code, type];
  if (kinds.some((kind) => kind && REFUSED_DESCRIPTION_CODES.includes(kind))) return DESCRIPTION_NOT_ACCEPTED;
  if (kinds.some((kind) => kind && SPENT_QUOTA_CODES.includes(kind))) {
    return `${DESCRIBED_AS} has no quota left${message ? `: ${message}` : ""}`;
  }
  return undefined;
}
