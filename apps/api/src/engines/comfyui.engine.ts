import { randomUUID } from "node:crypto";
import { setTimeout as delay } from "node:timers/promises";
import { backoffMs, type EngineRequest, IMAGES_PER_GENERATION, renderDescription } from "@imagehub/domain";
import { Logger } from "@nestjs/common";
import { WebSocket } from "undici";
import { z } from "zod";
import type { ComfyUiEngineConfig, EngineCallPolicy } from "../common/config.js";
import { dimensionsFor } from "./aspect-ratio.js";
import { type Message, type Messages, messagesOf } from "./comfyui-messages.js";
import {
  BATCH_SIZE,
  DEFAULT_IMAGE_WORKFLOW,
  DEFAULT_TEXT_WORKFLOW,
  fillWorkflow,
  IMAGE_WORKFLOW_PLACEHOLDERS,
  loadWorkflow,
  TEXT_WORKFLOW_PLACEHOLDERS,
  usesPlaceholder,
  type Workflow,
} from "./comfyui-workflow.js";
import { type EngineAnswer, EngineClient } from "./engine.client.js";
import {
  type EngineOutput,
  endQuietlyOnAbort,
  type GenerateOptions,
  type ImageEngine,
  ImageEngineError,
  type ImagePrompt,
} from "./image-engine.js";
import { seedFromText } from "./procedural.engine.js";
import { cfgScaleFor } from "./sdwebui.engine.js";
import { toStoredJpeg } from "./stored-image.js";

const DESCRIBED_AS = "the image engine (comfyui)";

const QueuedSchema = z.object({ prompt_id: z.string().min(1) });
const UploadedSchema = z.object({ name: z.string().min(1), subfolder: z.string().default("") });
const OutputImageSchema = z.object({
  filename: z.string().min(1),
  subfolder: z.string().default(""),
  type: z.string().default("output"),
});
const HistorySchema = z.record(
  z.string(),
  z.object({
    outputs: z.record(z.string(), z.object({ images: z.array(OutputImageSchema).optional() })),
  }),
);

/** POST /prompt's refusal (400): what failed validation, node by node. */
const PromptRefusalSchema = z.object({
  error: z.union([
    z.string(),
    z.object({ type: z.string().optional(), message: z.string(), details: z.string().optional() }),
  ]),
  node_errors: z
    .union([
      z.record(
        z.string(),
        z.object({
          class_type: z.string().optional(),
          errors: z.array(
            z.object({
              type: z.string().optional(),
              message: z.string(),
              details: z.string().optional(),
              extra_info: z
                .object({ input_name: z.string().optional(), received_value: z.unknown().optional() })
                .optional(),
            }),
          ),
        }),
      ),
      z.array(z.unknown()),
    ])
    .optional(),
});

/** Waits between tries to open the websocket never exceed this. */
const MAX_RETRY_WAIT_MS = 60_000;
/** Enough of an exception's message to understand it: its first line, as ComfyUI adds tips below. */
const MAX_EXCEPTION_LENGTH = 200;

/**
 * ComfyUI: the workflow (the default text-to-image or image-to-image one, or the user's own with
 * placeholders) is queued with `POST /prompt` under this run's `client_id`, followed on the `/ws`
 * websocket (its progress reported, its errors explained), and once it succeeds its saved images are
 * listed by `/history/{id}` and fetched with `/view`. An image prompt is uploaded first (`/upload/image`).
 * When the run is stopped (the generation deleted) the prompt is taken off the queue or interrupted.
 */
export class ComfyUiEngine implements ImageEngine {
  readonly name = "comfyui";
  readonly takesImagePrompt = true;
  private readonly logger = new Logger(ComfyUiEngine.name);
  private readonly service: EngineClient;
  private readonly textWorkflow: Workflow;
  private readonly imageWorkflow: Workflow;

  /** Reads the user's workflows now: a workflow without its placeholders stops the start. */
  constructor(
    private readonly settings: ComfyUiEngineConfig,
    private readonly calls: EngineCallPolicy,
  ) {
    this.service = new EngineClient({
      describedAs: DESCRIBED_AS,
      baseUrl: settings.baseUrl,
      headers: {},
      calls,
    });
    this.textWorkflow = settings.workflowPath
      ? loadWorkflow(settings.workflowPath, "COMFYUI_WORKFLOW", TEXT_WORKFLOW_PLACEHOLDERS)
      : DEFAULT_TEXT_WORKFLOW;
    this.imageWorkflow = settings.imageWorkflowPath
      ? loadWorkflow(settings.imageWorkflowPath, "COMFYUI_IMAGE_WORKFLOW", IMAGE_WORKFLOW_PLACEHOLDERS)
      : DEFAULT_IMAGE_WORKFLOW;
  }

  modelFor(request: EngineRequest): string | undefined {
    const workflow = request.imagePrompt ? this.imageWorkflow : this.textWorkflow;
    return usesPlaceholder(workflow, "checkpoint") ? this.settings.checkpoint : undefined;
  }

  generate(request: EngineRequest, { signal, imagePrompt }: GenerateOptions): AsyncIterable<EngineOutput> {
    return endQuietlyOnAbort(signal, this.draw(request, imagePrompt, signal));
  }

  private async *draw(
    request: EngineRequest,
    imagePrompt: ImagePrompt | undefined,
    signal: AbortSignal,
  ): AsyncIterable<EngineOutput> {
    const clientId = randomUUID();
    // Opened before the prompt is queued: its first messages may come before POST /prompt answers.
    const socket = await this.connect(clientId, signal);
    const messages = messagesOf(socket);
    const run = { promptId: undefined as string | undefined, hasStarted: false };
    const stop = () => {
      socket.close();
      if (run.promptId) void this.cancel(run.promptId, run.hasStarted);
    };
    signal.addEventListener("abort", stop, { once: true });
    try {
      const image = imagePrompt && (await this.upload(imagePrompt, signal));
      const seed = request.seed ?? seedFromText(request);
      const workflow = this.workflowFor(request, seed, image);
      const queued = await this.service.json(
        {
          method: "POST",
          path: "/prompt",
          body: { prompt: workflow, client_id: clientId },
          signal,
          explain: explainPromptRefusal,
          // A prompt that reached the queue must not be queued twice: a failed POST is not tried again.
          retries: 0,
        },
        QueuedSchema,
      );
      run.promptId = queued.prompt_id;
      yield* this.follow(messages, run, signal);
      yield* this.savedImages(run.promptId, request, seed, signal);
    } finally {
      signal.removeEventListener("abort", stop);
      socket.close();
    }
  }

  private workflowFor(request: EngineRequest, seed: number, image: string | undefined): Workflow {
    const { width, height } = dimensionsFor(request.aspectRatio, this.settings.longEdge);
    return fillWorkflow(image === undefined ? this.textWorkflow : this.imageWorkflow, {
      prompt: renderDescription(request),
      negative: request.negative.join(", "),
      seed,
      width,
      height,
      image: image ?? "",
      checkpoint: this.settings.checkpoint,
      steps: this.settings.steps,
      cfg: cfgScaleFor(request.stylize),
      sampler: this.settings.sampler,
      scheduler: this.settings.scheduler,
      denoise: this.settings.denoise,
      batch: BATCH_SIZE,
    });
  }

  /**
   * The websocket of this run's messages, open; tried again as the engine's calls are (a server restarting),
   * then a server that cannot be reached fails the run.
   */
  private async connect(clientId: string, signal: AbortSignal): Promise<WebSocket> {
    const url = new URL(`${this.settings.baseUrl}/ws`);
    url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
    url.searchParams.set("clientId", clientId);
    const { retries, retryDelayMs } = this.calls;
    for (let attempt = 1; ; attempt += 1) {
      const failure = await this.open(url, signal);
      if (typeof failure !== "string") return failure;
      if (attempt > retries) {
        throw new ImageEngineError(
          `${DESCRIBED_AS} could not be reached: ${failure}${attempt > 1 ? ` (${attempt} tries)` : ""}`,
        );
      }
      this.logger.warn(`${DESCRIBED_AS} at ${this.settings.baseUrl}: ${failure}; trying again`);
      await delay(backoffMs(attempt, retryDelayMs, MAX_RETRY_WAIT_MS), undefined, { signal });
    }
  }

  /** The socket once open, or why it did not open (undici does not say why a handshake failed). */
  private open(url: URL, signal: AbortSignal): Promise<WebSocket | string> {
    const socket = new WebSocket(url);
    socket.binaryType = "arraybuffer";
    const timeout = AbortSignal.any([signal, AbortSignal.timeout(this.calls.requestTimeoutMs)]);
    return new Promise((resolve, reject) => {
      const settle = (outcome: WebSocket | string) => {
        timeout.removeEventListener("abort", onTimeout);
        if (typeof outcome === "string") socket.close();
        resolve(outcome);
      };
      const onTimeout = () => {
        if (signal.aborted) {
          socket.close();
          reject(signal.reason);
          return;
        }
        settle(`its websocket ${url.pathname} did not open within ${this.calls.requestTimeoutMs / 1000} s`);
      };
      timeout.addEventListener("abort", onTimeout, { once: true });
      socket.addEventListener("open", () => settle(socket));
      socket.addEventListener("error", () => settle(`its websocket ${url.pathname} did not open`));
    });
  }

  /** The uploaded file's name, as LoadImage takes it. */
  private async upload(imagePrompt: ImagePrompt, signal: AbortSignal): Promise<string> {
    const form = new FormData();
    const extension = imagePrompt.mimeType.slice("image/".length);
    form.set(
      "image",
      new Blob([imagePrompt.bytes], { type: imagePrompt.mimeType }),
      `imagehub-${randomUUID()}.${extension}`,
    );
    form.set("type", "input");
    form.set("overwrite", "true");
    const uploaded = await this.service.json(
      { method: "POST", path: "/upload/image", form, signal },
      UploadedSchema,
    );
    return uploaded.subfolder ? `${uploaded.subfolder}/${uploaded.name}` : uploaded.name;
  }

  /**
   * The run's progress until it succeeds; its error, an interruption, a closed websocket or a queue that
   * does not start it within COMFYUI_QUEUE_START_SECONDS fail it.
   */
  private async *follow(
    messages: Messages,
    run: { promptId: string | undefined; hasStarted: boolean },
    signal: AbortSignal,
  ): AsyncIterable<EngineOutput> {
    const promptId = run.promptId as string;
    const queueDeadline = AbortSignal.timeout(this.settings.queueStartMs);
    for (;;) {
      const deadline = run.hasStarted ? signal : AbortSignal.any([signal, queueDeadline]);
      const message = await messages.next(promptId, deadline);
      if (message === undefined) {
        if (signal.aborted) return;
        if (queueDeadline.aborted && !run.hasStarted) {
          await this.cancel(promptId, false);
          throw new ImageEngineError(
            `${DESCRIBED_AS} did not start the workflow within ${this.settings.queueStartMs / 1000} s: its queue is busy`,
          );
        }
        throw new ImageEngineError(`${DESCRIBED_AS} closed its websocket before the workflow finished`);
      }
      run.hasStarted = true;
      switch (message.type) {
        case "progress":
          yield { fraction: Math.min(message.data.value / message.data.max, 1) };
          break;
        case "execution_error":
          throw executionFailure(message.data);
        case "execution_interrupted":
          throw new ImageEngineError(`${DESCRIBED_AS} interrupted the workflow`);
        case "execution_success":
          return;
        case "executing":
          // Servers older than execution_success tell the end by executing no node.
          if (message.data.node === null) return;
          break;
        default:
          break;
      }
    }
  }

  private async *savedImages(
    promptId: string,
    request: EngineRequest,
    seed: number,
    signal: AbortSignal,
  ): AsyncIterable<EngineOutput> {
    const history = await this.service.json(
      { method: "GET", path: `/history/${encodeURIComponent(promptId)}`, signal },
      HistorySchema,
    );
    const outputs = Object.values(history[promptId]?.outputs ?? {}).flatMap((output) => output.images ?? []);
    // Saved images first: a workflow may also preview (type temp) what it does not save.
    const saved = outputs.filter((image) => image.type === "output");
    const images = (saved.length >= IMAGES_PER_GENERATION ? saved : outputs).slice(0, IMAGES_PER_GENERATION);
    if (images.length < IMAGES_PER_GENERATION) {
      throw this.service.unreadable(
        `the workflow saved ${outputs.length} images, not ${IMAGES_PER_GENERATION}`,
      );
    }
    for (const [index, file] of images.entries()) {
      const url = new URL(`${this.settings.baseUrl}/view`);
      url.search = new URLSearchParams({
        filename: file.filename,
        subfolder: file.subfolder,
        type: file.type,
      }).toString();
      const bytes = await this.service.download(url, signal);
      const image = await toStoredJpeg(bytes, request.aspectRatio).catch(() => {
        throw this.service.unreadable(`image ${index + 1} is not a picture`);
      });
      // One seed for the batch: ComfyUI varies the images of a batch from it.
      yield { index, ...image, seed };
    }
  }

  /** Off the queue if it waits there, interrupted if it runs: its failure is logged, not the run's. */
  private async cancel(promptId: string, hasStarted: boolean): Promise<void> {
    const calls = [
      this.service.perform({ method: "POST", path: "/queue", body: { delete: [promptId] }, retries: 0 }),
      ...(hasStarted
        ? [
            this.service.perform({
              method: "POST",
              path: "/interrupt",
              body: { prompt_id: promptId },
              retries: 0,
            }),
          ]
        : []),
    ];
    for (const result of await Promise.allSettled(calls)) {
      if (result.status === "rejected")
        this.logger.warn(`prompt ${promptId} not cancelled: ${result.reason}`);
    }
  }
}

/** A refused prompt: an unknown checkpoint by its name, any other node's refusal in ComfyUI's words. */
function explainPromptRefusal({ status, body }: EngineAnswer): string | undefined {
  if (status !== 400) return undefined;
  const parsed = PromptRefusalSchema.safeParse(body);
  if (!parsed.success) return undefined;
  const { error, node_errors: nodeErrors } = parsed.data;
  const nodes = Array.isArray(nodeErrors) ? [] : Object.entries(nodeErrors ?? {});
  for (const [, node] of nodes) {
    const checkpoint = node.errors.find(
      (nodeError) =>
        nodeError.type === "value_not_in_list" && nodeError.extra_info?.input_name === "ckpt_name",
    );
    if (checkpoint)
      return `${DESCRIBED_AS} has no checkpoint named ${String(checkpoint.extra_info?.received_value)}`;
  }
  const summary = typeof error === "string" ? error : error.message;
  const first = nodes[0];
  const firstError = first?.[1].errors[0];
  const detail = firstError
    ? `: node ${first[0]} (${first[1].class_type ?? "unknown"}): ${firstError.message}${firstError.details ? `: ${firstError.details}` : ""}`
    : "";
  return `${DESCRIBED_AS} refused the workflow: ${summary}${detail}`;
}

function executionFailure(data: Extract<Message, { type: "execution_error" }>["data"]): ImageEngineError {
  const where = `node ${data.node_id ?? "?"} (${data.node_type ?? "unknown"})`;
  const message = (data.exception_message ?? "").split("\n")[0]?.trim().slice(0, MAX_EXCEPTION_LENGTH) ?? "";
  if (/OutOfMemoryError/.test(data.exception_type ?? "")) {
    return new ImageEngineError(`${DESCRIBED_AS} ran out of GPU memory at ${where}: ${message}`);
  }
  return new ImageEngineError(
    `${DESCRIBED_AS} failed at ${where}: ${data.exception_type ?? "error"}${message ? `: ${message}` : ""}`,
  );
}
