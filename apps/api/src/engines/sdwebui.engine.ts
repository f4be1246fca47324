import { setTimeout as delay } from "node:timers/promises";
import {
  type EngineRequest,
  IMAGES_PER_GENERATION,
  renderDescription,
  STYLIZE_DEFAULT,
  STYLIZE_MAX,
} from "@imagehub/domain";
import { z } from "zod";
import type { EngineCallPolicy, SdWebUiEngineConfig } from "../common/config.js";
import { dimensionsFor } from "./aspect-ratio.js";
import { EngineClient } from "./engine.client.js";
import {
  type EngineOutput,
  endQuietlyOnAbort,
  type GenerateOptions,
  type ImageEngine,
  type ImagePrompt,
} from "./image-engine.js";
import { toStoredJpeg } from "./stored-image.js";

const Txt2ImgAnswerSchema = z.object({
  // With save_images off (its default) the API answers the batch alone, without a grid.
  images: z.array(z.string().min(1)).min(IMAGES_PER_GENERATION, "expected 4 images"),
  /** JSON text: the seed drawn with, among the run's parameters. */
  info: z.string().optional(),
});
const ProgressAnswerSchema = z.object({ progress: z.number().min(0).max(1) });
const RunInfoSchema = z.object({ seed: z.number().int().min(0).max(4_294_967_295) });

/** cfg_scale at stylize 0, at the default 100 and at STYLIZE_MAX. */
const STRICT_CFG_SCALE = 10;
const DEFAULT_CFG_SCALE = 7;
const LOOSE_CFG_SCALE = 3;

/** img2img's resize_mode: the init image cropped to the size asked for, then resized (no stretching). */
const CROP_AND_RESIZE = 1;

/**
 * AUTOMATIC1111 / Forge (`POST /sdapi/v1/txt2img`, or `/sdapi/v1/img2img` from an image prompt, its init
 * image): the 4 images in one batch, so they come together at the end; meanwhile its
 * `GET /sdapi/v1/progress` is reported as the generation's progress.
 */
export class SdWebUiEngine implements ImageEngine {
  readonly name = "sdwebui";
  readonly takesImagePrompt = true;
  private readonly service: EngineClient;

  constructor(
    private readonly settings: SdWebUiEngineConfig,
    private readonly calls: EngineCallPolicy,
  ) {
    this.service = new EngineClient({
      describedAs: "the image engine (sdwebui)",
      baseUrl: settings.baseUrl,
      headers: settings.apiAuth
        ? { authorization: `Basic ${Buffer.from(settings.apiAuth).toString("base64")}` }
        : {},
      calls,
    });
  }

  modelFor(): string | undefined {
    return this.settings.model;
  }

  generate(request: EngineRequest, { signal, imagePrompt }: GenerateOptions): AsyncIterable<EngineOutput> {
    return endQuietlyOnAbort(signal, this.draw(request, imagePrompt, signal));
  }

  private async *draw(
    request: EngineRequest,
    imagePrompt: ImagePrompt | undefined,
    signal: AbortSignal,
  ): AsyncIterable<EngineOutput> {
    const { width, height } = dimensionsFor(request.aspectRatio, this.settings.longEdge);
    const body = this.txt2ImgBody(request, width, height);
    const drawing = this.service.json(
      imagePrompt
        ? {
            method: "POST",
            path: "/sdapi/v1/img2img",
            body: {
              ...body,
              init_images: [imagePrompt.bytes.toString("base64")],
              denoising_strength: this.settings.denoise,
              resize_mode: CROP_AND_RESIZE,
            },
            signal,
          }
        : { method: "POST", path: "/sdapi/v1/txt2img", body, signal },
      Txt2ImgAnswerSchema,
    );
    yield* this.progressUntil(drawing, signal);
    const answer = await drawing;
    const seed = seedOf(answer.info) ?? request.seed ?? 0;
    for (const [index, base64] of answer.images.slice(0, IMAGES_PER_GENERATION).entries()) {
      const image = await toStoredJpeg(Buffer.from(base64, "base64"), request.aspectRatio).catch(() => {
        throw this.service.unreadable(`image ${index + 1} is not a picture`);
      });
      yield { index, ...image, seed };
    }
  }

  private txt2ImgBody(request: EngineRequest, width: number, height: number) {
    const { model, sampler, steps } = this.settings;
    return {
      prompt: renderDescription(request),
      negative_prompt: request.negative.join(", "),
      // -1: the server draws one, and says which in `info`.
      seed: request.seed ?? -1,
      batch_size: IMAGES_PER_GENERATION,
      n_iter: 1,
      width,
      height,
      steps,
      cfg_scale: cfgScaleFor(request.stylize),
      ...(sampler && { sampler_name: sampler }),
      ...(model && { override_settings: { sd_model_checkpoint: model } }),
    };
  }

  /** The server's progress, each time it grew, asked for every poll interval until `drawing` settles. */
  private async *progressUntil(drawing: Promise<unknown>, signal: AbortSignal): AsyncIterable<EngineOutput> {
    // Never rejects: the drawing's failure is for the caller, who awaits it next.
    const settled = drawing.then(
      () => true,
      () => true,
    );
    let reported = 0;
    while (!(await Promise.race([settled, delay(this.calls.pollIntervalMs, false, { signal })]))) {
      const fraction = await this.service
        .json(
          { method: "GET", path: "/sdapi/v1/progress?skip_current_image=true", signal, retries: 0 },
          ProgressAnswerSchema,
        )
        .then(
          (answer) => answer.progress,
          // A missed reading only delays the next one; the drawing decides the outcome.
          () => 0,
        );
      if (fraction > reported) {
        reported = fraction;
        yield { fraction };
      }
    }
  }
}

/**
 * Stylize (how freely a style is applied, Midjourney's 0–1000) as classifier-free guidance, which goes the
 * other way (how strictly the prompt is followed): 0 → 10, the default 100 → 7, 1000 → 3, linear between.
 */
export function cfgScaleFor(stylize: number): number {
  const clamped = Math.min(Math.max(stylize, 0), STYLIZE_MAX);
  const scale =
    clamped <= STYLIZE_DEFAULT
      ? STRICT_CFG_SCALE - ((STRICT_CFG_SCALE - DEFAULT_CFG_SCALE) * clamped) / STYLIZE_DEFAULT
      : DEFAULT_CFG_SCALE -
        ((DEFAULT_CFG_SCALE - LOOSE_CFG_SCALE) * (clamped - STYLIZE_DEFAULT)) /
          (STYLIZE_MAX - STYLIZE_DEFAULT);
  return Math.round(scale * 2) / 2;
}

/** The seed the server drew with, from the `info` JSON text; undefined when it does not say. */
function seedOf(info: string | undefined): number | undefined {
  if (info === undefined) return undefined;
  try {
    const parsed = RunInfoSchema.safeParse(JSON.parse(info));
    return parsed.success ? parsed.data.seed : undefined;
  } catch {
    return undefined;
  }
}
