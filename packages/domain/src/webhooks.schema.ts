import { z } from "zod";
import { DateTimeSchema } from "./common.schema.js";
import { ImageGenerationSchema } from "./generations.schema.js";

export const GENERATION_EVENT_TYPES = [
  "print.created",
  "print.active",
  "print.progress",
  "print.completed",
  "print.failed",
] as const;
export type GenerationEventType = (typeof GENERATION_EVENT_TYPES)[number];
/**
 * `webhook.disabled` tells an account's other webhooks that one of its webhooks was disabled; every other
 * webhook of the account receives it, whichever events it chose.
 */
export const WEBHOOK_DISABLED_EVENT = "webhook.disabled";
export const WEBHOOK_EVENT_TYPES = ["test", WEBHOOK_DISABLED_EVENT, ...GENERATION_EVENT_TYPES] as const;
export const WebhookEventTypeSchema = z.enum(WEBHOOK_EVENT_TYPES);
export type WebhookEventType = z.infer<typeof WebhookEventTypeSchema>;
export const DEFAULT_WEBHOOK_EVENTS: WebhookEventType[] = ["print.completed", "print.failed"];
export const WEBHOOK_API_VERSION = 1;

export const WebhookEnvelopeSchema = z
  .object({
    id: z.string().describe("Event identifier; the same on every delivery attempt."),
    api_version: z.literal(WEBHOOK_API_VERSION),
    created: z.number().int().describe("When the event happened, in Unix seconds."),
    type: WebhookEventTypeSchema,
    data: ImageGenerationSchema.or(z.record(z.string(), z.unknown())).describe(
      "The ImageGeneration as Get returns it at that moment; for test events, a small object; for webhook.disabled, the webhook (id, url, disabledAt, disabledReason).",
    ),
  })
  .meta({ id: "WebhookEnvelope", description: "The body of every webhook delivery." });
export type WebhookEnvelope = z.infer<typeof WebhookEnvelopeSchema>;

export const SubscribeWebhookRequestSchema = z
  .object({
    url: z.url({ protocol: /^https?$/ }).max(2048),
    events: z
      .array(WebhookEventTypeSchema)
      .min(1)
      .optional()
      .describe("Events to receive; print.completed and print.failed when omitted."),
  })
  .meta({ id: "SubscribeWebhookRequest" });
export type SubscribeWebhookRequest = z.infer<typeof SubscribeWebhookRequestSchema>;

export const SubscribeWebhookResponseSchema = z
  .object({
    webhookId: z.string(),
    secret: z.string().describe("The signing secret (Standard Webhooks); shown only here."),
  })
  .meta({ id: "SubscribeWebhookResponse" });
export type SubscribeWebhookResponse = z.infer<typeof SubscribeWebhookResponseSchema>;

export const WebhookSchema = z
  .object({
    id: z.string(),
    apiKeyId: z
      .string()
      .nullable()
      .describe(
        "Identifier of the API key that created it (never the key); null when created from the web area.",
      ),
    url: z.url(),
    events: z.array(WebhookEventTypeSchema),
    createdAt: DateTimeSchema,
    disabled: z
      .boolean()
      .describe("True after deliveries failed for days without a success, or a 410; re-enable it to resume."),
    disabledReason: z.string().optional().describe("Why it was disabled, when it is."),
    disabledAt: DateTimeSchema.optional().describe("When it was disabled, when it is."),
    failingSince: DateTimeSchema.optional().describe(
      "When its deliveries began failing with no success since; absent while they succeed. Disabled once this lasts too long (5 days by default).",
    ),
  })
  .meta({ id: "Webhook" });
export type Webhook = z.infer<typeof WebhookSchema>;

export const EnableWebhookRequestSchema = z
  .object({
    replay: z
      .boolean()
      .optional()
      .describe(
        "Also send again every event not delivered since its deliveries began failing, those that came while it was disabled included (an imagehub extension).",
      ),
  })
  .meta({ id: "EnableWebhookRequest" });
export type EnableWebhookRequest = z.infer<typeof EnableWebhookRequestSchema>;

export const WebhookListSchema = z.object({ webhooks: z.array(WebhookSchema) }).meta({ id: "WebhookList" });
export type WebhookList = z.infer<typeof WebhookListSchema>;

export const ApiKeyWebhookIdParamsSchema = z.object({
  apiKeyWebhookId: z.string().describe("The webhook's id (webhookId at subscription)."),
});
export const ApiWebhookIdParamsSchema = z.object({
  apiWebhookId: z.string().describe("The webhook's id (webhookId at subscription)."),
});

/** The web area's routes name the webhook plainly. */
export const WebhookIdParamsSchema = z.object({ webhookId: z.string().describe("The webhook's id.") });

export const WebhookTestResponseSchema = z
  .object({ eventId: z.string().describe("The test event's id: its webhook-id header.") })
  .meta({ id: "WebhookTestResponse" });
export type WebhookTestResponse = z.infer<typeof WebhookTestResponseSchema>;

export const WebhookAttemptSchema = z
  .object({
    eventId: z.string(),
    attempt: z.number().int().min(1).describe("1 for the first attempt of this event, then 2, 3…"),
    statusCode: z.number().int().optional().describe("The endpoint's HTTP status; absent when none came."),
    durationMs: z.number().int(),
    error: z.string().optional().describe("Why the attempt failed; absent on success."),
    createdAt: DateTimeSchema,
  })
  .meta({ id: "WebhookAttempt" });
export type WebhookAttempt = z.infer<typeof WebhookAttemptSchema>;

export const WebhookAttemptListSchema = z
  .object({ attempts: z.array(WebhookAttemptSchema) })
  .meta({ id: "WebhookAttemptList", description: "The latest attempts, newest first (at most 100)." });
export type WebhookAttemptList = z.infer<typeof WebhookAttemptListSchema>;
