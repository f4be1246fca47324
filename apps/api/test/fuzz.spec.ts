import { accountOperations, type Operation, operations } from "@imagehub/domain";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readJson } from "../../../tests/support/json.js";
import { startTestApi, type TestApi } from "../../../tests/support/test-api.js";
import { hashPassword } from "../src/account-area/passwords.js";
import { createRandomFromText } from "../src/common/seeded-random.js";

/** The same requests on every run: a failure names its seed and request, and happens again. */
const SEED = 20261202;
const REQUESTS_PER_OPERATION = 24;
const PASSWORD = "correct horse battery";

type Random = () => number;
const pick = <T>(random: Random, choices: readonly T[]): T =>
  choices[Math.floor(random() * choices.length)] as T;

/** Values a client gets wrong: wrong types, edges of ranges, bad encodings, hostile text, huge sizes. */
const HOSTILE_STRINGS = [
  "",
  " ",
  "%",
  "%E0%A4%A",
  "%00",
  "\u0000",
  "\uFFFF",
  "\uD800",
  "../../etc/passwd",
  "<script>alert(1)</script>",
  "' OR 1=1 --",
  "ih_",
  "whsec_x",
  "null",
  "-1",
  "1e309",
  "NaN",
  "00000000-0000-0000-0000-000000000000",
  "ffffffff-ffff-ffff-ffff-ffffffffffff",
  "x".repeat(5000),
  "😀".repeat(300),
];

function hostileValue(random: Random, depth = 0): unknown {
  switch (Math.floor(random() * (depth > 2 ? 7 : 9))) {
    case 0:
      return pick(random, HOSTILE_STRINGS);
    case 1:
      return pick(random, [0, -1, 1, 2 ** 31, -(2 ** 63), 1.5, Number.MAX_SAFE_INTEGER + 2, 1e308]);
    case 2:
      return pick(random, [true, false, null]);
    case 3:
      return pick(random, ["simple", "advanced", "f_images", "print.completed", "https://hooks.invalid/h"]);
    case 4:
      return pick(random, ["2026-13-45T99:99:99Z", "2026-11-27T00:00:00Z", "1"]);
    case 5:
      return String(Math.floor(random() * 1e6));
    case 6:
      // Never a public host: a webhook accepted would be delivered to it.
      return `https://${pick(random, ["127.0.0.1", "[::1]", "user:pw@hooks.invalid", "hooks.invalid:0", "localhost"])}/h`;
    case 7:
      return Array.from({ length: Math.floor(random() * 4) }, () => hostileValue(random, depth + 1));
    default:
      return hostileBody(random, depth + 1);
  }
}

/** An object with some of the operation's own field names (so that validation goes deep) and others. */
function hostileBody(random: Random, depth = 0, fields: string[] = []): Record<string, unknown> {
  const names = [...fields, "__proto__", "constructor", "id", "ids", "url", "events", "name", "email"];
  const body: Record<string, unknown> = {};
  for (let i = Math.floor(random() * 6); i > 0; i--) body[pick(random, names)] = hostileValue(random, depth);
  return body;
}

/** Percent-encoded; a lone surrogate (which encodeURIComponent refuses) as the bytes a client would send. */
function encoded(text: string): string {
  try {
    return encodeURIComponent(text);
  } catch {
    return "%ED%A0%80";
  }
}

function fieldsOf(schema: Operation["body"] | Operation["query"]): string[] {
  const shape = (schema as { shape?: Record<string, unknown> } | undefined)?.shape;
  return shape ? Object.keys(shape) : [];
}

function hostilePath(random: Random, operation: Operation): string {
  const path = operation.path.replace(/\{[^}]+\}/g, () =>
    pick(random, [
      "00000000-0000-7000-8000-000000000000",
      "not-a-uuid",
      "%",
      "%E0%A4%A",
      "..%2F..%2F",
      "x".repeat(3000),
      "1",
      "-1",
      encoded(pick(random, HOSTILE_STRINGS)),
    ]),
  );
  if (random() < 0.5) return path;
  const fields = [...fieldsOf(operation.query), "limit", "offset", "cursor", "signature", "expires"];
  const query = Array.from(
    { length: 1 + Math.floor(random() * 4) },
    () =>
      `${pick(random, fields)}=${pick(random, [encoded(String(hostileValue(random, 3))), "%", "%ZZ", ""])}`,
  );
  return `${path}?${query.join("&")}`;
}

/** A request's body: JSON of hostile values, malformed JSON, another type, or none. */
function hostileRequestBody(random: Random, operation: Operation): { body?: string; contentType?: string } {
  switch (Math.floor(random() * 6)) {
    case 0:
      return {};
    case 1:
      return { body: '{"a":', contentType: "application/json" };
    case 2:
      return { body: "token=x&a=%", contentType: "application/x-www-form-urlencoded" };
    case 3:
      return { body: JSON.stringify(hostileValue(random)), contentType: "application/json" };
    default:
      return {
        body: JSON.stringify(hostileBody(random, 0, fieldsOf(operation.body))),
        contentType: pick(random, ["application/json", "application/json; charset=utf-16", "text/plain"]),
      };
  }
}

describe("a fuzz over every /v1 and /account operation", () => {
  let api: TestApi;
  let apiKey: string;
  let session: { cookie: string; csrfToken: string };
  let signIn: () => Promise<void>;

  beforeAll(async () => {
    api = await startTestApi({
      env: {
        API_KEY_FREE_FAILURES: "10000",
        SIGN_IN_ATTEMPTS_PER_MINUTE: "10000",
        SIGN_IN_FREE_FAILURES: "100",
      },
    });
    const account = await api.createAccount({ credits: { f_images: 5, f_images_print: 5 } });
    apiKey = account.apiKey;
    const { email } = await api.resources.database.prisma.account.update({
      where: { id: account.accountId },
      data: { passwordHash: await hashPassword(PASSWORD), isAdmin: true },
    });
    signIn = async () => {
      const signedIn = await api.request("/account/sign-in", {
        method: "POST",
        json: { email, password: PASSWORD },
      });
      session = {
        cookie: (signedIn.headers.get("set-cookie") ?? "").split(";")[0] as string,
        csrfToken: (await readJson(signedIn)).csrfToken,
      };
    };
    await signIn();
  });
  afterAll(() => api.close());

  /** Credentials as a client may send them: right, wrong, malformed or missing, in the header and cookie. */
  function hostileHeaders(random: Random): Record<string, string> {
    const headers: Record<string, string> = {};
    const key = pick(random, [apiKey, apiKey, "ih_unknown", "", "%", apiKey.toUpperCase(), undefined]);
    if (key !== undefined) headers["api-key"] = key;
    const cookie = pick(random, [
      session.cookie,
      session.cookie,
      "imagehub_session=%",
      "imagehub_session=%E0%A4%A",
      "imagehub_session=; imagehub_session=x",
      `${session.cookie}%`,
      "=; ;;=",
      undefined,
    ]);
    if (cookie !== undefined) headers.cookie = cookie;
    const csrf = pick(random, [session.csrfToken, session.csrfToken, "", "%", undefined]);
    if (csrf !== undefined) headers["x-csrf-token"] = csrf;
    if (random() < 0.3) headers["idempotency-key"] = pick(random, ["k", "", "x".repeat(300), "%E0"]);
    if (random() < 0.2) headers["if-none-match"] = pick(random, ["*", '"x"', "W/", ""]);
    if (random() < 0.1) headers["x-forwarded-for"] = pick(random, ["1.2.3.4", "::1", "garbage", ""]);
    return headers;
  }

  const everyOperation = [...Object.values(operations), ...Object.values(accountOperations)] as Operation[];

  it("covers every operation", () => {
    expect(everyOperation.length).toBeGreaterThan(50);
  });

  it.each(everyOperation.map((operation) => [operation.operationId, operation] as const))(
    `%s: ${REQUESTS_PER_OPERATION} hostile requests, no 5xx`,
    async (operationId, operation) => {
      const random = createRandomFromText(`${SEED}:${operationId}`);
      const serverErrors: string[] = [];
      for (let i = 0; i < REQUESTS_PER_OPERATION; i++) {
        const path = hostilePath(random, operation);
        const { body, contentType } = hostileRequestBody(random, operation);
        const headers = hostileHeaders(random);
        if (contentType) headers["content-type"] = contentType;
        const method =
          random() < 0.9 ? operation.method : pick(random, ["GET", "POST", "PUT", "DELETE", "PATCH"]);
        const response = await api.request(path, {
          method,
          headers,
          ...(body !== undefined && method !== "GET" && { body }),
        });
        await response.arrayBuffer();
        // A sign-out that went through ended the session the next requests send.
        if (operation.path.startsWith("/account/sign-out") && response.ok) await signIn();
        if (response.status >= 500) {
          serverErrors.push(
            `${response.status} ${method} ${path.slice(0, 200)} ${body?.slice(0, 200) ?? ""}`,
          );
        }
      }
      expect(serverErrors).toEqual([]);
    },
  );
});
