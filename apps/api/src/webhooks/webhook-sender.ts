import { createHmac, createSecretKey, type KeyObject } from "node:crypto";
import { STATUS_CODES } from "node:http";
import { parseRetryAfterMs } from "@imagehub/domain";
import { Inject, Injectable, type OnModuleDestroy } from "@nestjs/common";
import { LRUCache } from "lru-cache";
import { Agent, type Dispatcher } from "undici";
import { APP_CONFIG, type AppConfig } from "../common/config.js";
import { assertAllowedUrl, ForbiddenAddressError, guardedLookup } from "../common/outside-address.js";

export interface WebhookMessage {
  /** The event id: the `webhook-id` header, the same on every attempt. */
  id: string;
  body: string;
}

export interface SendOutcome {
  delivered: boolean;
  /** The endpoint's status; undefined when none came. */
  statusCode?: number;
  durationMs: number;
  /** Why it is not delivered, for people to read. */
  error?: string;
  /** From `Retry-After` on a 429 or 503. */
  retryAfterSeconds?: number;
}

/** Where a webhook's URL points, split as the connection pool takes it. */
interface Endpoint {
  origin: string;
  /** The path and query. */
  path: string;
}

/** What came back: the status, and the headers that a failure's record or schedule reads. */
interface Answer {
  statusCode: number;
  headers: Record<string, string | string[] | undefined>;
}

const USER_AGENT = "imagehub-webhooks/1";
/** Standard Webhooks' secrets: the key, base64, after this prefix. */
const SECRET_PREFIX = "whsec_";

/** Signed POSTs (Standard Webhooks) to webhook endpoints, refusing addresses inside the network. */
@Injectable()
export class WebhookSender implements OnModuleDestroy {
  private readonly agent: Agent;
  private readonly timeoutMs: number;
  private readonly keys = new LRUCache<string, KeyObject>({ max: 10_000 });
  /**
   * Each URL's verdict, checked and parsed once rather than at every delivery. No expiry is needed: the
   * verdict reads the URL's text alone (its scheme, an address written in it); a host name is checked against
   * DNS as each connection is made (guardedLookup), so no DNS answer is kept here.
   */
  private readonly endpoints = new LRUCache<string, Endpoint | Error>({ max: 10_000 });
  /** Requests under way, at most WEBHOOK_CONCURRENCY (a group's are sent at once); the others wait in turn. */
  private sending = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {
    this.timeoutMs = config.webhooks.timeoutSeconds * 1000;
    this.agent = new Agent({
      // Checked when each connection is made: DNS may have changed since the subscription.
      connect: config.webhooks.allowPrivate ? {} : { lookup: guardedLookup },
      // The status decides: it must come within the time limit (and the body not stall past it).
      headersTimeout: this.timeoutMs,
      bodyTimeout: this.timeoutMs,
    });
  }

  async send(target: { url: string; secret: string }, message: WebhookMessage): Promise<SendOutcome> {
    if (this.sending < this.config.webhooks.concurrency) this.sending += 1;
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    try {
      return await this.attempt(target, message);
    } finally {
      // The slot passes to the next request waiting, if any.
      const next = this.waiting.shift();
      if (next) next();
      else this.sending -= 1;
    }
  }

  private async attempt(
    target: { url: string; secret: string },
    message: WebhookMessage,
  ): Promise<SendOutcome> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    try {
      const endpoint = this.endpoints.get(target.url) ?? (await this.check(target.url));
      if (endpoint instanceof Error) throw endpoint;
      const timestamp = Math.floor(Date.now() / 1000);
      const response = await post(this.agent, {
        ...endpoint,
        method: "POST",
        headers: {
          "content-type": "application/json",
          "user-agent": USER_AGENT,
          "webhook-id": message.id,
          "webhook-timestamp": String(timestamp),
          "webhook-signature": this.sign(target.secret, message, timestamp),
        },
        body: message.body,
      });
      const { statusCode } = response;
      if (statusCode >= 200 && statusCode < 300)
        return { delivered: true, statusCode, durationMs: elapsed() };
      const retryAfterSeconds =
        statusCode === 429 || statusCode === 503
          ? secondsToRetryAfter(response.headers["retry-after"])
          : undefined;
      return {
        delivered: false,
        statusCode,
        durationMs: elapsed(),
        error:
          statusCode >= 300 && statusCode < 400
            ? `${statusCode} redirect (to ${response.headers.location ?? "nowhere"}): redirects are not followed`
            : `${statusCode} ${STATUS_CODES[statusCode] ?? ""}`.trim(),
        ...(retryAfterSeconds !== undefined && { retryAfterSeconds }),
      };
    } catch (error) {
      return { delivered: false, durationMs: elapsed(), error: this.describe(error) };
    }
  }

  /** The URL's endpoint, or why it may not be called (see `endpoints`). */
  private async check(url: string): Promise<Endpoint | Error> {
    let verdict: Endpoint | Error;
    try {
      const parsed = new URL(url);
      await assertAllowedUrl(parsed, this.config.webhooks);
      verdict = { origin: parsed.origin, path: `${parsed.pathname}${parsed.search}` };
    } catch (error) {
      verdict = error as Error;
    }
    this.endpoints.set(url, verdict);
    return verdict;
  }

  /**
   * Standard Webhooks' v1 signature: HMAC-SHA256 of `id.timestamp.body` under the secret's key, in base64.
   * Node's own HMAC, over the body as it is sent; decoded keys are kept per secret.
   */
  private sign(secret: string, message: WebhookMessage, timestamp: number): string {
    let key = this.keys.get(secret);
    if (!key) {
      const encoded = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret;
      key = createSecretKey(Buffer.from(encoded, "base64"));
      this.keys.set(secret, key);
    }
    const signature = createHmac("sha256", key)
      .update(`${message.id}.${timestamp}.${message.body}`)
      .digest("base64");
    return `v1,${signature}`;
  }

  async onModuleDestroy(): Promise<void> {
    await this.agent.close();
  }

  private describe(error: unknown): string {
    if (error instanceof ForbiddenAddressError) return `refused: ${error.message}`;
    const { code, message, cause } = error as Error & { code?: string; cause?: unknown };
    if (cause instanceof ForbiddenAddressError) return `refused: ${cause.message}`;
    if (code === "UND_ERR_HEADERS_TIMEOUT" || code === "UND_ERR_BODY_TIMEOUT") {
      return `no answer within ${this.config.webhooks.timeoutSeconds} s`;
    }
    return coarseNetworkError(code ?? codeOf(cause), message);
  }
}

/**
 * Sends a request on the pool and answers its status and headers once the response has ended, its body
 * discarded as it comes: a delivery reads nothing else, so no stream is made for the body.
 */
function post(agent: Agent, options: Dispatcher.DispatchOptions): Promise<Answer> {
  return new Promise((resolve, reject) => {
    agent.dispatch(options, new AnswerHandler(resolve, reject));
  });
}

/** One object per request, its methods on the prototype: a delivery allocates little. */
class AnswerHandler implements Dispatcher.DispatchHandler {
  private answer: Answer | undefined;

  constructor(
    private readonly resolve: (answer: Answer) => void,
    private readonly reject: (error: Error) => void,
  ) {}

  onRequestStart(): void {}

  onResponseStart(
    _controller: Dispatcher.DispatchController,
    statusCode: number,
    headers: Answer["headers"],
  ): void {
    this.answer = { statusCode, headers };
  }

  onResponseData(): void {}

  onResponseEnd(): void {
    if (this.answer) this.resolve(this.answer);
    else this.reject(new Error("the response ended before its headers"));
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    this.reject(error);
  }
}

/** Retry-After in whole seconds, as the delivery schedule counts. */
function secondsToRetryAfter(value: string | string[] | undefined): number | undefined {
  const ms = parseRetryAfterMs(value);
  return ms === undefined ? undefined : Math.ceil(ms / 1000);
}

function codeOf(error: unknown): string | undefined {
  return (error as { code?: string } | undefined)?.code;
}

const COARSE_REASONS: [RegExp, string][] = [
  [/^ECONNREFUSED$/, "connection refused"],
  [/^(ENOTFOUND|EAI_AGAIN|EAI_FAIL|EAI_NODATA|EAI_NONAME)$/, "DNS lookup failed"],
  [/^(ETIMEDOUT|UND_ERR_CONNECT_TIMEOUT)$/, "timeout"],
  [/^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_|SELF_SIGNED_|EPROTO$)/, "TLS error"],
  [/^(ECONNRESET|EPIPE|UND_ERR_SOCKET|UND_ERR_CLOSED)$/, "connection closed"],
  [/^(EHOSTUNREACH|ENETUNREACH|EHOSTDOWN|ENETDOWN)$/, "host unreachable"],
];

/**
 * What a delivery attempt records of a network failure: a coarse reason, never the socket's own message,
 * which names the address and port that answered how (a port scanner's oracle in the attempts list).
 */
function coarseNetworkError(code: string | undefined, message: string): string {
  const found = code ? COARSE_REASONS.find(([pattern]) => pattern.test(code)) : undefined;
  if (found) return found[1];
  return /certificate|tls|ssl/i.test(message) ? "TLS error" : "network error";
}
