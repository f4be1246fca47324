/**
 * An HTTP `Retry-After` header (seconds, possibly fractional, or an HTTP date) as milliseconds from now;
 * undefined when absent or unreadable. The one reading of it, for the API, the client and the bots.
 */
export function parseRetryAfterMs(value: string | string[] | undefined): number | undefined {
  const text = (Array.isArray(value) ? value[0] : value)?.trim();
  if (!text) return undefined;
  if (/^\d+(\.\d+)?$/.test(text)) return Number(text) * 1000;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}

/**
 * The wait before retry `retry` (1 for the first): `firstMs`, doubled for each retry after it, at most
 * `maxMs`, jittered to between half and all of that so that callers refused together come back apart.
 */
export function backoffMs(retry: number, firstMs: number, maxMs: number): number {
  return Math.min(firstMs * 2 ** (retry - 1), maxMs) * (0.5 + Math.random() / 2);
}
