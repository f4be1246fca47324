import { STATUS_CODES } from "node:http";
import { setTimeout as delay } from "node:timers/promises";
import { backoffMs, parseRetryAfterMs } from "@imagehub/domain";
import { Logger } from "@nestjs/common";
import { request } from "undici";
import { z } from "zod";
import type { EngineCallPolicy } from "../common/config.js";
import { ImageEngineError } from "./image-engine.js";

/** Waits between retries never exceed this, a service's Retry-After included. */
const MAX_RETRY_WAIT_MS = 60_000;
/** Enough of a refusal's message to understand it; services sometimes answer whole pages. */
const MAX_MESSAGE_LENGTH = 300;
const USER_AGENT = "imagehub/1";

/** An answer other than 2xx, as a service's own reading (`explain`) gets it. */
export interface EngineAnswer {
  status: number;
  /** The parsed JSON body, or its text when it is not JSON. */
  body: unknown;
}

export interface EngineCall {
  method: "GET" | "POST" | "DELETE";
  /** After the base URL. */
  path: string;
  /** Sent as JSON. */
  body?: unknown;
  /** Sent as multipart/form-data instead (file uploads). */
  form?: FormData;
  /** Ends the call, retries included, when aborted; absent: only the time limits end it. */
  signal?: AbortSignal | undefined;
  /**
   * The service's own reading of an answer other than 2xx: the generation's failure reason for the answers
   * it recognises (a refused description, a spent quota), never retried; undefined reads it the common way.
   */
  explain?: (answer: EngineAnswer) => string | undefined;
  /** Instead of the policy's: 0 for calls whose failure does not matter (progress). */
  retries?: number;
}

/** A call whose URL is made: a path of the service's, or a file's own address. */
type AddressedCall = Omit<EngineCall, "path">;

type Failure =
  /** `failureReason`: the generation's, whole. */
  | { isTransient: false; failureReason: string }
  /** `detail`: what went wrong this time ("HTTP 503 Service Unavailable"). */
  | { isTransient: true; detail: string; retryAfterMs?: number | undefined };

type Attempt = { body: Buffer } | { failure: Failure };

/**
 * HTTP calls to the service behind an engine (or the prompt optimizer): a time limit on each request,
 * transient failures (network, time-outs, 429, 5xx) tried again with exponential backoff (a Retry-After
 * honoured), and every failure turned into an ImageEngineError whose message users can read. Credentials
 * live in `headers` only: they are sent to the service's own origin and never written anywhere.
 */
export class EngineClient {
  private readonly logger = new Logger(EngineClient.name);
  private readonly origin: string;

  constructor(
    private readonly service: {
      /** How failure reasons name it: "the image engine (openai)". */
      describedAs: string;
      baseUrl: string;
      headers: Record<string, string>;
      calls: EngineCallPolicy;
    },
  ) {
    this.origin = new URL(service.baseUrl).origin;
  }

  /** The JSON answer of a call, read with `schema`. */
  async json<T>(call: EngineCall, schema: z.ZodType<T>): Promise<T> {
    const body = await this.send(new URL(`${this.service.baseUrl}${call.path}`), call);
    let parsed: unknown;
    try {
      parsed = JSON.parse(body.toString("utf8"));
    } catch {
      throw this.unreadable("not JSON");
    }
    const result = schema.safeParse(parsed);
    if (!result.success) {
      const [issue] = result.error.issues;
      throw this.unreadable(issue ? `${issue.path.join(".") || "answer"}: ${issue.message}` : "unexpected");
    }
    return result.data;
  }

  /** A call whose answer says nothing beyond its status. */
  async perform(call: EngineCall): Promise<void> {
    await this.send(new URL(`${this.service.baseUrl}${call.path}`), call);
  }

  /** The bytes at `url` (a file the service made); credentials go only to the service's own origin. */
  download(url: URL, signal: AbortSignal | undefined): Promise<Buffer> {
    return this.send(url, { method: "GET", signal });
  }

  /** A failure for an answer that does not say what the engine needs: permanent, as asking again will not help. */
  unreadable(detail: string): ImageEngineError {
    return new ImageEngineError(`${this.service.describedAs} answered something unreadable: ${detail}`);
  }

  private async send(url: URL, call: AddressedCall): Promise<Buffer> {
    const retries = call.retries ?? this.service.calls.retries;
    for (let attempt = 1; ; attempt += 1) {
      const outcome = await this.attempt(url, call);
      if ("body" in outcome) return outcome.body;
      const { failure } = outcome;
      const { describedAs } = this.service;
      if (!failure.isTransient) throw new ImageEngineError(failure.failureReason);
      if (attempt > retries) {
        throw new ImageEngineError(
          attempt === 1
            ? `${describedAs} failed: ${failure.detail}`
            : `${describedAs} failed ${attempt} times in a row; last: ${failure.detail}`,
        );
      }
      const waitMs =
        failure.retryAfterMs === undefined
          ? backoffMs(attempt, this.service.calls.retryDelayMs, MAX_RETRY_WAIT_MS)
          : Math.min(failure.retryAfterMs, MAX_RETRY_WAIT_MS);
      this.logger.warn(
        `${describedAs} at ${this.origin}: ${failure.detail}; trying again in ${Math.round(waitMs)} ms (retry ${attempt} of ${retries})`,
      );
      await delay(waitMs, undefined, { signal: call.signal });
    }
  }

  private async attempt(url: URL, call: AddressedCall): Promise<Attempt> {
    const timeout = AbortSignal.timeout(this.service.calls.requestTimeoutMs);
    try {
      const multipart = call.form && (await encodeMultipart(call.form));
      const response = await request(url, {
        method: call.method,
        headers: {
          "user-agent": USER_AGENT,
          ...(url.origin === this.origin && this.service.headers),
          ...(call.body !== undefined && { "content-type": "application/json" }),
          ...(multipart && { "content-type": multipart.contentType }),
        },
        ...(call.body !== undefined && { body: JSON.stringify(call.body) }),
        ...(multipart && { body: multipart.body }),
        signal: call.signal ? AbortSignal.any([call.signal, timeout]) : timeout,
      });
      const body = Buffer.from(await response.body.arrayBuffer());
      if (response.statusCode >= 200 && response.statusCode < 300) return { body };
      return { failure: this.readRefusal(response.statusCode, response.headers["retry-after"], body, call) };
    } catch (error) {
      // The run is over (done elsewhere, deleted, out of time): no failure of the service's.
      if (call.signal?.aborted) throw call.signal.reason;
      if (timeout.aborted) {
        const limit = this.service.calls.requestTimeoutMs / 1000;
        return { failure: { isTransient: true, detail: `no answer within ${limit} s` } };
      }
      const { code, message } = error as Error & { code?: string };
      return { failure: { isTransient: true, detail: code ?? message } };
    }
  }

  private readRefusal(
    status: number,
    retryAfter: string | string[] | undefined,
    bytes: Buffer,
    call: AddressedCall,
  ): Failure {
    const text = bytes.toString("utf8");
    const body = parseJsonOrText(text);
    const explained = call.explain?.({ status, body });
    if (explained !== undefined) return { isTransient: false, failureReason: explained };
    const statusText = `HTTP ${status} ${STATUS_CODES[status] ?? ""}`.trim();
    const { describedAs } = this.service;
    if (status === 401 || status === 403) {
      // The service's message is left out: some quote the key they refused.
      return {
        isTransient: false,
        failureReason: `${describedAs} refused imagehub's credentials (${statusText})`,
      };
    }
    if (status === 408 || status === 429 || status >= 500) {
      return { isTransient: true, detail: statusText, retryAfterMs: parseRetryAfterMs(retryAfter) };
    }
    const message = messageOf(body);
    return {
      isTransient: false,
      failureReason: `${describedAs} refused the request (${statusText})${message ? `: ${message}` : ""}`,
    };
  }
}

function parseJsonOrText(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/**
 * The human part of an error body, in the shapes the services use: OpenAI's `error.message`, FastAPI's
 * (AUTOMATIC1111) `detail`, midjourney-proxy's `description`, or plain text; the first that fits.
 */
const ERROR_MESSAGE_SHAPES = [
  z.object({ error: z.object({ message: z.string().min(1) }) }).transform((body) => body.error.message),
  z.object({ detail: z.string().min(1) }).transform((body) => body.detail),
  z
    .object({ detail: z.tuple([z.object({ msg: z.string().min(1) })], z.unknown()) })
    .transform((body) => body.detail[0].msg),
  z.object({ description: z.string().min(1) }).transform((body) => body.description),
  z.object({ error: z.string().min(1) }).transform((body) => body.error),
  z.object({ message: z.string().min(1) }).transform((body) => body.message),
  z.string().min(1),
];

function messageOf(body: unknown): string | undefined {
  const found = ERROR_MESSAGE_SHAPES.map((shape) => shape.safeParse(body)).find((result) => result.success);
  const message = found?.data.replace(/\s+/g, " ").trim();
  if (!message) return undefined;
  return message.length > MAX_MESSAGE_LENGTH ? `${message.slice(0, MAX_MESSAGE_LENGTH - 1)}…` : message;
}

/**
 * A form as bytes and its content type, encoded by the runtime's own Response: undici's FormData does not
 * read the Blobs of every Node version (on Node 24 its request never sends the body).
 */
async function encodeMultipart(form: FormData): Promise<{ body: Buffer; contentType: string }> {
  const encoded = new Response(form);
  const contentType = encoded.headers.get("content-type") ?? "multipart/form-data";
  return { body: Buffer.from(await encoded.arrayBuffer()), contentType };
}
