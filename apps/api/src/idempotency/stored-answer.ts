import { errorBody } from "../common/error-body.js";

/** What an idempotency key keeps of a first answer, to give it again. */
export interface StoredAnswer {
  statusCode: number;
  response: unknown;
}

/**
 * Fields of an answer that hold a secret shown once only: a new API key, a webhook's signing secret, a
 * one-time link that sets a password.
 */
const SECRET_FIELDS = ["key", "secret", "link", "token"];

/**
 * What to keep of a first answer: the answer itself, unless it holds a secret, which is never kept at rest.
 * Then the key keeps a refusal (409) that names what the first request made, to be looked up instead.
 */
export function storedAnswerOf(statusCode: number, answer: unknown): StoredAnswer {
  if (!isObject(answer) || !SECRET_FIELDS.some((field) => typeof answer[field] === "string")) {
    return { statusCode, response: answer ?? null };
  }
  return {
    statusCode: 409,
    response: errorBody(
      409,
      `the first request with this Idempotency-Key succeeded, but its answer held a secret that is shown only once and not kept: look up ${madeBy(answer)} instead (if its secret was lost, replace it)`,
    ),
  };
}

/** The object the first request made, by the id its answer gave. */
function madeBy(answer: Record<string, unknown>): string {
  if (typeof answer.webhookId === "string") return `webhook ${answer.webhookId}`;
  const apiKey = answer.apiKey;
  if (isObject(apiKey) && typeof apiKey.id === "string") return `API key ${apiKey.id}`;
  if (typeof answer.email === "string") return `the account ${answer.email}`;
  return "what it made";
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
