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
