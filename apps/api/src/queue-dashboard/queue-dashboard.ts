import { createHmac, timingSafeEqual } from "node:crypto";
import { createBullBoard } from "@bull-board/api";
import { BullMQAdapter } from "@bull-board/api/bullMQAdapter";
import { FastifyAdapter } from "@bull-board/fastify";
import type { Queue } from "bullmq";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { isBearer } from "../common/bearer-token.js";
import { errorBody } from "../common/error-body.js";
import {
  type FailureDelayRepository,
  type FailurePolicy,
  secondsOf,
} from "../common/failure-delay.repository.js";

export const QUEUE_DASHBOARD_PATH = "/admin/queues";
const SESSION_COOKIE = "imagehub_queue_dashboard";
const SESSION_HOURS = 12;
const FORM = "application/x-www-form-urlencoded";

export interface QueueDashboardOptions {
  adminToken: string;
  /** Cookies marked Secure: the API is reached over https. */
  isSecure: boolean;
  /** Wrong tokens, per client address: each one past the first few makes the next attempt wait longer. */
  failures: FailureDelayRepository;
}

/** Wrong tokens one address may send before it must wait; waits grow to a minute. */
const WRONG_TOKENS: FailurePolicy = { freeFailures: 5, maxDelayMs: 60_000 };

/**
 * bull-board under /admin/queues: every queue's jobs, with pause, resume, retry and the rest. Scripts send
 * `Authorization: Bearer <ADMIN_TOKEN>`; a browser signs in once at /admin/queues/login with the token and
 * gets a session cookie, signed with the token (so every API process accepts it, and changing the token
 * ends every session), valid 12 hours, sent to /admin/queues only and never by another site. An address
 * that keeps sending wrong tokens (form or header) waits longer before each next one (429).
 */
export function mountQueueDashboard(
  fastify: FastifyInstance,
  queues: Queue[],
  options: QueueDashboardOptions,
) {
  const board = new FastifyAdapter();
  board.setBasePath(QUEUE_DASHBOARD_PATH);
  createBullBoard({ queues: queues.map((queue) => new BullMQAdapter(queue)), serverAdapter: board });
  return fastify.register(
    async (scope) => {
      // The sign-in form's body: this scope may load before the application's parsers are added.
      if (!scope.hasContentTypeParser(FORM)) {
        scope.addContentTypeParser(FORM, { parseAs: "string" }, (_request, body, done) => {
          done(null, Object.fromEntries(new URLSearchParams(body as string)));
        });
      }
      scope.get("/login", async (_request, reply) => reply.type("text/html").send(LOGIN_PAGE));
      scope.post<{ Body: { token?: unknown } }>("/login", async (request, reply) => {
        const subject = `queue-dashboard:${request.ip}`;
        const waitMs = await options.failures.waitOf(subject);
        if (waitMs > 0) return tooManyWrongTokens(reply, waitMs);
        const token = request.body?.token;
        if (typeof token !== "string" || !isBearer(`Bearer ${token}`, options.adminToken)) {
          await options.failures.recordFailure(subject, WRONG_TOKENS);
          return reply.code(401).type("text/html").send(LOGIN_PAGE.replace("<!--refused-->", REFUSED));
        }
        await options.failures.forget(subject);
        return reply.header("set-cookie", sessionCookie(options)).redirect(QUEUE_DASHBOARD_PATH, 303);
      });
      scope.addHook("onRequest", async (request, reply) => {
        if (request.routeOptions.url === `${QUEUE_DASHBOARD_PATH}/login`) return;
        const presentsToken = request.headers.authorization !== undefined;
        const subject = `queue-dashboard:${request.ip}`;
        if (presentsToken) {
          const waitMs = await options.failures.waitOf(subject);
          if (waitMs > 0) return tooManyWrongTokens(reply, waitMs);
        }
        if (isAdmin(request, options.adminToken)) return;
        if (presentsToken) await options.failures.recordFailure(subject, WRONG_TOKENS);
        refuse(request, reply);
      });
      await scope.register(board.registerPlugin());
    },
    { prefix: QUEUE_DASHBOARD_PATH },
  );
}

function isAdmin(request: FastifyRequest, adminToken: string): boolean {
  if (isBearer(request.headers.authorization, adminToken)) return true;
  const session = cookieNamed(request.headers.cookie, SESSION_COOKIE);
  return session !== undefined && isValidSession(session, adminToken);
}

/** The dashboard's API answers 401 in the error body; its pages send a browser to the sign-in. */
function refuse(request: FastifyRequest, reply: FastifyReply): void {
  if (request.url.startsWith(`${QUEUE_DASHBOARD_PATH}/api/`)) {
    void reply
      .code(401)
      .send(
        errorBody(
          401,
          "the queue dashboard needs Authorization: Bearer <ADMIN_TOKEN> or a signed-in session",
        ),
      );
    return;
  }
  void reply.redirect(`${QUEUE_DASHBOARD_PATH}/login`, 302);
}

function tooManyWrongTokens(reply: FastifyReply, waitMs: number): FastifyReply {
  const seconds = secondsOf(waitMs);
  return reply
    .code(429)
    .header("retry-after", String(seconds))
    .send(errorBody(429, `too many wrong admin tokens from this address; try again in ${seconds} s`));
}

/** `<expiry in ms>.<HMAC of it keyed with the admin token>` */
function sessionCookie({ adminToken, isSecure }: QueueDashboardOptions): string {
  const expiresAt = Date.now() + SESSION_HOURS * 3600_000;
  const value = `${expiresAt}.${signature(String(expiresAt), adminToken)}`;
  return [
    `${SESSION_COOKIE}=${value}`,
    `Path=${QUEUE_DASHBOARD_PATH}`,
    `Max-Age=${SESSION_HOURS * 3600}`,
    "HttpOnly",
    "SameSite=Strict",
    ...(isSecure ? ["Secure"] : []),
  ].join("; ");
}

function isValidSession(value: string, adminToken: string): boolean {
  const [expiresAt = "", presented = ""] = value.split(".");
  if (!/^\d+$/.test(expiresAt) || Number(expiresAt) < Date.now()) return false;
  const expected = Buffer.from(signature(expiresAt, adminToken));
  const given = Buffer.from(presented);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

function signature(text: string, adminToken: string): string {
  return createHmac("sha256", adminToken).update(`queue-dashboard-session:${text}`).digest("base64url");
}

function cookieNamed(header: string | undefined, name: string): string | undefined {
  for (const pair of header?.split(";") ?? []) {
    const [key, ...value] = pair.trim().split("=");
    if (key === name) return value.join("=");
  }
  return undefined;
}

const REFUSED = `<p role="alert">That is not the admin token.</p>`;

const LOGIN_PAGE = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>imagehub queues: sign in</title>
<style>body{font-family:system-ui,sans-serif;max-width:24rem;margin:4rem auto}input,button{font:inherit;padding:.4rem}</style>
</head>
<body>
<h1>imagehub queues</h1>
<!--refused-->
<form method="post" action="${QUEUE_DASHBOARD_PATH}/login">
<label>Admin token (ADMIN_TOKEN)<br><input type="password" name="token" autocomplete="current-password" required autofocus></label>
<p><button type="submit">Sign in</button></p>
</form>
</body>
</html>
`;
