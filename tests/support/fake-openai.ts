import { fakePicture } from "./fake-pictures.js";
import { type FakeAnswer, type FakeRequest, FakeService } from "./fake-service.js";

export const IMAGES_PATH = "/v1/images/generations";
export const CHAT_PATH = "/v1/chat/completions";

/** The Images API's answer: `n` pictures of the size asked for, base64-encoded, PNG unless told. */
export async function imagesAnswer(
  request: FakeRequest,
  { format = "png" }: { format?: "png" | "webp" } = {},
): Promise<FakeAnswer> {
  const { size, n } = request.body as { size: string; n: number };
  const [width, height] = size.split("x").map(Number);
  const picture = await fakePicture(width ?? 0, height ?? 0, { format });
  return {
    json: {
      created: 1_770_000_000,
      data: Array.from({ length: n }, () => ({ b64_json: picture.toString("base64") })),
      usage: { total_tokens: 100, input_tokens: 10, output_tokens: 90 },
    },
  };
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
    .on("POST", CHAT_PATH, () => chatAnswer("a rewritten description"))
    .start();
}
