import { setTimeout as delay } from "node:timers/promises";
import { type EngineRequest, renderCommand } from "@imagehub/domain";
import sharp from "sharp";
import { z } from "zod";
import type { EngineCallPolicy, MidjourneyEngineConfig } from "../common/config.js";
import { EngineClient } from "./engine.client.js";
import {
  DESCRIPTION_NOT_ACCEPTED,
  type EngineOutput,
  endQuietlyOnAbort,
  type ImageEngine,
  ImageEngineError,
} from "./image-engine.js";
import { type Region, toStoredJpeg } from "./stored-image.js";

const DESCRIBED_AS = "the image engine (midjourney)";

/** midjourney-proxy's answer codes to a submission. */
const SubmitCode = { Submitted: 1, Existed: 21, InQueue: 22, BannedPrompt: 24 } as const;
const ACCEPTED_CODES: readonly number[] = [SubmitCode.Submitted, SubmitCode.Existed, SubmitCode.InQueue];

const SubmitAnswerSchema = z.object({
  code: z.number().int(),
  description: z.string().nullish(),
  /** The task's id, when accepted. */
  result: z.union([z.string().min(1), z.number().transform(String)]).nullish(),
});
const TaskSchema = z.object({
  status: z.enum(["NOT_START", "SUBMITTED", "MODAL", "IN_PROGRESS", "SUCCESS", "FAILURE", "CANCEL"]),
  /** "45%", or empty before it starts. */
  progress: z.string().nullish(),
  imageUrl: z.string().nullish(),
  failReason: z.string().nullish(),
});

/** How Midjourney words its moderation's refusals in a task's failReason. */
const REFUSAL_WORDS = /banned|sensitive|moderat|community (standards|guidelines)/i;

/**
 * A Midjourney proxy in the style of the open-source midjourney-proxy projects: the compiled command is
 * submitted (`POST /mj/submit/imagine`), then its task is polled (`GET /mj/task/{id}/fetch`), its percent
 * reported as progress, until it succeeds with a 2×2 grid, cut into the 4 images. Polling, rather than its
 * notifyHook callback, needs no address where the proxy can reach the worker.
 */
export class MidjourneyEngine implements ImageEngine {
  readonly name = "midjourney";
  /** The request's URL goes into the command, where Midjourney fetches it. */
  readonly takesImagePrompt = false;
  private readonly service: EngineClient;

  constructor(
    private readonly settings: MidjourneyEngineConfig,
    private readonly calls: EngineCallPolicy,
  ) {
    this.service = new EngineClient({
      describedAs: DESCRIBED_AS,
      baseUrl: settings.baseUrl,
      headers: settings.apiSecret ? { "mj-api-secret": settings.apiSecret } : {},
      calls,
    });
  }

  /** The model the command asks for (`--niji 6`, `--v 6.1`); without either, Midjourney's default. */
  modelFor({ advanced }: EngineRequest): string | undefined {
    if (advanced.niji !== undefined) return advanced.niji === true ? "niji" : `niji ${advanced.niji}`;
    return advanced.version === undefined ? undefined : `v ${advanced.version}`;
  }

  generate(request: EngineRequest, { signal }: { signal: AbortSignal }): AsyncIterable<EngineOutput> {
    return endQuietlyOnAbort(signal, this.draw(request, signal));
  }

  private async *draw(request: EngineRequest, signal: AbortSignal): AsyncIterable<EngineOutput> {
    const taskId = await this.submit(request, signal);
    let reported = 0;
    for (;;) {
      await delay(this.calls.pollIntervalMs, undefined, { signal });
      const task = await this.service.json(
        { method: "GET", path: `/mj/task/${encodeURIComponent(taskId)}/fetch`, signal },
        TaskSchema,
      );
      if (task.status === "SUCCESS") {
        if (!task.imageUrl) throw this.service.unreadable("a finished task without imageUrl");
        yield* this.cutGrid(new URL(task.imageUrl, `${this.settings.baseUrl}/`), request, signal);
        return;
      }
      if (task.status === "FAILURE" || task.status === "CANCEL") throw failureOf(task);
      const fraction = Number.parseFloat(task.progress ?? "") / 100;
      if (fraction > reported) {
        reported = fraction;
        yield { fraction: Math.min(fraction, 1) };
      }
    }
  }

  /** The task's id; a refused description ends here, as the proxy checks banned words itself. */
  private async submit(request: EngineRequest, signal: AbortSignal): Promise<string> {
    const answer = await this.service.json(
      { method: "POST", path: "/mj/submit/imagine", body: { prompt: renderCommand(request) }, signal },
      SubmitAnswerSchema,
    );
    if (answer.code === SubmitCode.BannedPrompt) throw new ImageEngineError(DESCRIPTION_NOT_ACCEPTED);
    if (!ACCEPTED_CODES.includes(answer.code)) {
      throw new ImageEngineError(
        `${DESCRIBED_AS} refused the request (code ${answer.code})${answer.description ? `: ${answer.description}` : ""}`,
      );
    }
    if (!answer.result) throw this.service.unreadable("an accepted task without its id");
    return answer.result;
  }

  /** The grid's quarters, left to right then top to bottom, as Midjourney numbers them (U1–U4). */
  private async *cutGrid(url: URL, request: EngineRequest, signal: AbortSignal): AsyncIterable<EngineOutput> {
    const grid = await this.service.download(url, signal);
    const { width = 0, height = 0 } = await sharp(grid)
      .metadata()
      .catch(() => {
        throw this.service.unreadable("the grid is not a picture");
      });
    const quarter = { width: Math.floor(width / 2), height: Math.floor(height / 2) };
    const regions: Region[] = [
      { left: 0, top: 0, ...quarter },
      { left: quarter.width, top: 0, ...quarter },
      { left: 0, top: quarter.height, ...quarter },
      { left: quarter.width, top: quarter.height, ...quarter },
    ];
    for (const [index, region] of regions.entries()) {
      const image = await toStoredJpeg(grid, request.aspectRatio, region);
      // The proxy does not say which seed Midjourney drew with; a --seed given is in the command.
      yield { index, ...image, seed: request.seed ?? 0 };
    }
  }
}

function failureOf(task: z.infer<typeof TaskSchema>): ImageEngineError {
  if (task.status === "CANCEL") return new ImageEngineError(`${DESCRIBED_AS} cancelled the task`);
  if (task.failReason && REFUSAL_WORDS.test(task.failReason))
    return new ImageEngineError(DESCRIPTION_NOT_ACCEPTED);
  return new ImageEngineError(`${DESCRIBED_AS} could not draw it: ${task.failReason || "no reason given"}`);
}
