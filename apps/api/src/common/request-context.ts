import { AsyncLocalStorage } from "node:async_hooks";

/** What every log line written while serving a request carries: the request's id (`x-request-id`). */
interface RequestContext {
  requestId: string;
}

const requestContext = new AsyncLocalStorage<RequestContext>();

/** Runs `work`, and everything it starts, as part of the request `requestId`. */
export function runInRequest<T>(requestId: string, work: () => T): T {
  return requestContext.run({ requestId }, work);
}

/** The id of the request the running code serves; undefined outside a request (jobs, start-up). */
export function currentRequestId(): string | undefined {
  return requestContext.getStore()?.requestId;
}
