import { type WebhookEnvelope, WebhookEnvelopeSchema } from "@imagehub/domain";
import { Webhook } from "standardwebhooks";
import { ImagehubError } from "./errors.js";

/** The signature, the timestamp or the body of a webhook delivery is not valid. */
export class WebhookVerificationError extends ImagehubError {
  override name = "WebhookVerificationError";
}

/**
 * Checks a delivery's Standard Webhooks signature with the webhook's secret (`whsec_…`), and that its
 * timestamp is within 5 minutes, and answers its envelope. `rawBody` must be the body as received, before
 * any JSON parsing. Keep the `webhook-id`s handled: delivery is at least once.
 */
export function verifyWebhook(
  rawBody: string | Uint8Array,
  headers: Headers | Record<string, string | string[] | undefined>,
  secret: string,
): WebhookEnvelope {
  const header = (name: string) => {
    const value = headers instanceof Headers ? headers.get(name) : headers[name];
    return (Array.isArray(value) ? value[0] : value) ?? "";
  };
  const body = typeof rawBody === "string" ? rawBody : new TextDecoder().decode(rawBody);
  let payload: unknown;
  try {
    payload = new Webhook(secret).verify(body, {
      "webhook-id": header("webhook-id"),
      "webhook-timestamp": header("webhook-timestamp"),
      "webhook-signature": header("webhook-signature"),
    });
  } catch (error) {
    throw new WebhookVerificationError(`webhook not verified: ${(error as Error).message}`, { cause: error });
  }
  const envelope = WebhookEnvelopeSchema.safeParse(payload);
  if (!envelope.success) throw new WebhookVerificationError("webhook body is not an imagehub event envelope");
  return envelope.data;
}
