/**
 * Why a webhook whose delivery just failed is disabled now: the endpoint answered 410 Gone (it asks to be
 * forgotten), or no delivery has succeeded since `failingSince` for the whole period allowed
 * (WEBHOOK_DISABLE_AFTER_SECONDS). Undefined: deliveries go on.
 */
export function reasonToDisable(
  statusCode: number | undefined,
  failingSince: Date,
  disableAfterSeconds: number,
  now = Date.now(),
): string | undefined {
  if (statusCode === 410) return "the endpoint answered 410 Gone";
  if (now - failingSince.getTime() < disableAfterSeconds * 1000) return undefined;
  return `no delivery succeeded since ${failingSince.toISOString()}`;
}
