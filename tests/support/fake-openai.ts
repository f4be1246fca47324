import { type Colour, fakePicture, meanColour, RED } from "./fake-pictures.js";
import { type FakeAnswer, type FakeRequest, FakeService } from "./fake-service.js";

export const IMAGES_PATH = "/v1/images/generations";
export const EDITS_PATH = "/v1/images/edits";
/** The edits endpoint's limit on each input image of the gpt-image-1 models. */
export const EDIT_IMAGE_MAX_BYTES = 50 * 1024 * 1024;
const EDIT_IMAGE_TYPES = ["image/png", "image/jpeg", "image/webp"];
export const CHAT_PATH = "/v1/chat/completions";

/** The Images API's answer: `n` pictures of the size asked for, base64-encoded, PNG unless told. */
export async function imagesAnswer(
  request: FakeRequest,
  { format = "png", colour = RED }: { format?: "png" | "webp"; colour?: Colour } = {},
): Promise<FakeAnswer> {
  const { size, n } = request.body as { size: string; n: number };
  const [width, height] = size.split("x").map(Number);
  const picture = await fakePicture(width ?? 0, height ?? 0, { format, colour });
  return {
    json: {
      created: 1_770_000_000,
      data: Array.from({ length: n }, () => ({ b64_json: picture.toString("base64") })),
      usage: { total_tokens: 100, input_tokens: 10, output_tokens: 90 },
    },
  };
}

/**
 * The edits endpoint's answer (multipart): `n` pictures in the input image's colour, or its refusals in
 * the API's words: no image, a type it does not take, an image over its limit, a model without edits.
 */
export async function editsAnswer(request: FakeRequest): Promise<FakeAnswer> {
  const form = request.form;
  const model = String(form?.get("model") ?? "");
  if (model.startsWith("dall-e-3")) {
    return openAiError(400, {
      code: "invalid_value",
      type: "invalid_request_error",
      message: `Invalid value: '${model}'. Value must be one of 'dall-e-2', 'gpt-image-1'.`,
    });
  }
  const image = form?.get("image");
  if (!(image instanceof Blob)) {
    return openAiError(400, {
      code: "missing_required_parameter",
      type: "invalid_request_error",
      message: "Missing required parameter: 'image'.",
    });
  }
  if (!EDIT_IMAGE_TYPES.includes(image.type)) {
    return openAiError(400, {
      code: "unsupported_file_mimetype",
      type: "invalid_request_error",
      message: `Invalid file 'image': unsupported mimetype ('${image.type}'). Supported file formats are 'image/jpeg', 'image/png', and 'image/webp'.`,
    });
  }
  if (image.size > EDIT_IMAGE_MAX_BYTES) {
    return openAiError(400, {
      code: "image_too_large",
      type: "invalid_request_error",
      message: "Image file must be less than 50 MB.",
    });
  }
  const colour = await meanColour(await image.arrayBuffer());
  const fields = { size: String(form?.get("size")), n: Number(form?.get("n") ?? 1) };
  return imagesAnswer({ ...request, body: fields }, { colour });
}

/** An error as the OpenAI API words them. */
export function openAiError(
  status: number,
  error: { code: string | null; type: string; message: string },
  headers?: Record<string, string>,
): FakeAnswer {
  return { status, json: { error: { param: null, ...error } }, ...(headers && { headers }) };
}

/** A chat completion whose message is `content` (null, as when a content filter stopped it). */
export function chatAnswer(content: string | null): FakeAnswer {
  return {
    json: {
      id: "chatcmpl-1",
      object: "chat.completion",
      model: "gpt-4o-mini",
      choices: [
        {
          index: 0,
          message: { role: "assistant", content },
          finish_reason: content === null ? "content_filter" : "stop",
        },
      ],
    },
  };
}

/** The OpenAI API on 127.0.0.1: images drawn as asked, chat completions answering a fixed rewrite. */
export function startFakeOpenAi(): Promise<FakeService> {
  return new FakeService()
    .on("POST", IMAGES_PATH, (request) => imagesAnswer(request))
    .on("POST", EDITS_PATH, (request) => editsAnswer(request))
    .on("POST", CHAT_PATH, () => chatAnswer("a rewritten description"))
    .start();
}
