import type { BodyInputOf, ErrorBody, Operation, ResultOf } from "@imagehub/domain";

/** An error answer of the API, with the lines of its `message`. */
export class ApiError extends Error {
  constructor(
    readonly statusCode: number,
    readonly messages: string[],
  ) {
    super(messages.join("\n"));
  }
}

let csrfToken = "";
let onSignedOut: () => void = () => {};

/** The session's CSRF token goes with every state change; a 401 means the session is gone. */
export function setSessionHandlers(token: string, signedOut: () => void): void {
  csrfToken = token;
  onSignedOut = signedOut;
}

export interface CallInput<O extends Operation> {
  body?: BodyInputOf<O>;
  params?: Record<string, string>;
  query?: Record<string, string | number | undefined>;
}

/** Calls one of the API's operations by its description: method, path and shapes come from @imagehub/domain. */
export async function call<O extends Operation>(
  operation: O,
  input: CallInput<O> = {},
): Promise<ResultOf<O>> {
  const path = operation.path.replace(/\{(\w+)\}/g, (_, name: string) =>
    encodeURIComponent(input.params?.[name] ?? ""),
  );
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(input.query ?? {})) {
    if (value !== undefined && value !== "") query.set(name, String(value));
  }
  const hasBody = input.body !== undefined;
  // A 401 ends the session it was sent under: not one that began while the request was on its way (a
  // one-time link's, answered before the app's first session check).
  const sentUnder = csrfToken;
  const response = await fetch(query.size > 0 ? `${path}?${query}` : path, {
    method: operation.method,
    credentials: "same-origin",
    headers: {
      ...(hasBody && { "content-type": "application/json" }),
      ...(operation.method !== "GET" && { "x-csrf-token": csrfToken }),
    },
    ...(hasBody && { body: JSON.stringify(input.body) }),
  });
  if (!response.ok) {
    const error = (await response.json().catch(() => undefined)) as ErrorBody | undefined;
    if (response.status === 401 && operation.auth !== "signed-out" && sentUnder === csrfToken) onSignedOut();
    throw new ApiError(response.status, error?.message ?? [response.statusText]);
  }
  const text = await response.text();
  return (text ? JSON.parse(text) : undefined) as ResultOf<O>;
}
