import { type Colour, fakePicture, meanColour, RED } from "./fake-pictures.js";
import { type FakeAnswer, type FakeRequest, FakeService } from "./fake-service.js";

export const TXT2IMG_PATH = "/sdapi/v1/txt2img";
export const IMG2IMG_PATH = "/sdapi/v1/img2img";
export const PROGRESS_PATH = "/sdapi/v1/progress";

/** The seed the fake says it drew with when asked for a random one (-1). */
export const DRAWN_SEED = 1_234_567;

/** txt2img's answer: `batch_size` PNGs of the size asked for, and the run's info as JSON text. */
export async function txt2ImgAnswer(request: FakeRequest, colour: Colour = RED): Promise<FakeAnswer> {
  const { width, height, batch_size, seed } = request.body as {
    width: number;
    height: number;
    batch_size: number;
    seed: number;
  };
  const picture = (await fakePicture(width, height, { colour })).toString("base64");
  const drawnSeed = seed === -1 ? DRAWN_SEED : seed;
  return {
    json: {
      images: Array.from({ length: batch_size }, () => picture),
      parameters: request.body,
      info: JSON.stringify({
        seed: drawnSeed,
        all_seeds: Array.from({ length: batch_size }, (_, index) => drawnSeed + index),
        sd_model_name: "sd_xl_base_1.0",
      }),
    },
  };
}

/** GET /sdapi/v1/progress while idle, or at `progress` (0–1) of the current job. */
export function progressAnswer(progress: number): FakeAnswer {
  return {
    json: {
      progress,
      eta_relative: progress === 0 ? 0 : 10 * (1 - progress),
      state: {
        job_count: progress === 0 ? 0 : 1,
        sampling_step: Math.round(progress * 30),
        sampling_steps: 30,
      },
      current_image: null,
      textinfo: null,
    },
  };
}

/**
 * img2img's answer, or its refusals as modules/api/api.py words them: no init image (404), one that does
 * not decode (500 from decode_base64_to_image). The batch is drawn in the init image's colour.
 */
export async function img2ImgAnswer(request: FakeRequest): Promise<FakeAnswer> {
  const { init_images } = request.body as { init_images?: string[] | null };
  if (!init_images) return { status: 404, json: { detail: "Init image not found" } };
  const colour = await meanColour(Buffer.from(init_images[0] ?? "", "base64")).catch(() => undefined);
  if (!colour) {
    return {
      status: 500,
      json: { error: "HTTPException", detail: "Invalid encoded image", body: "", errors: "" },
    };
  }
  return txt2ImgAnswer(request, colour);
}

/** AUTOMATIC1111's API (started with --api) on 127.0.0.1: draws as asked, idle between jobs. */
export function startFakeSdWebUi(): Promise<FakeService> {
  return new FakeService()
    .on("POST", TXT2IMG_PATH, (request) => txt2ImgAnswer(request))
    .on("POST", IMG2IMG_PATH, (request) => img2ImgAnswer(request))
    .on("GET", PROGRESS_PATH, () => progressAnswer(0))
    .start();
}
