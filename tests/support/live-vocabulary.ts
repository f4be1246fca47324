import type { OperationId } from "@imagehub/domain";
import { z } from "zod";

/**
 * What a strict third-party client of the live service accepts, written from all-images-api.md and
 * observed-live-api.md on purpose rather than imported from @imagehub/domain: a contract the code cannot
 * move. Every object refuses unknown keys and every enumerated value refuses values the live service does
 * not send. imagehub's own documented additions are listed as such, each marked "addition".
 */

export const LIVE_PARAM_NAMES = [
  "sujetMode",
  "templatePrompt",
  "angle",
  "photographe",
  "time",
  "weather",
  "format",
  "camera",
  "interdiction",
  "version",
  "chaos",
  "stylize",
  "fromImageUrl",
] as const;

/** One valid value for every live parameter name, as text, as live clients send them. */
export const EVERY_LIVE_PARAM: { name: (typeof LIVE_PARAM_NAMES)[number]; value: string }[] = [
  { name: "sujetMode", value: "portrait" },
  { name: "templatePrompt", value: "realisticQuality" },
  { name: "angle", value: "low angle" },
  { name: "photographe", value: "Ansel Adams" },
  { name: "time", value: "night" },
  { name: "weather", value: "foggy" },
  { name: "format", value: "4:5" },
  { name: "camera", value: "Leica M6" },
  { name: "interdiction", value: "text" },
  { name: "version", value: "6.1" },
  { name: "chaos", value: "20" },
  { name: "stylize", value: "250" },
  { name: "fromImageUrl", value: "https://images.example.com/fox.png" },
];

const LIVE_CREDIT_TYPES = [
  "global",
  "f_images",
  "f_images_print",
  "f_images_packImage",
  "f_images_upscaleHD",
  "f_images_upscaleUHD",
  "f_websites",
  "f_queues",
  // addition: the dedicated plan's fast-generation quota
  "f_images_print_fast",
] as const;

const LIVE_EVENTS = [
  "test",
  "print.created",
  "print.active",
  "print.progress",
  "print.completed",
  "print.failed",
  // addition: tells an account's other webhooks that one was disabled
  "webhook.disabled",
] as const;

const dateTime = z.iso.datetime({ offset: true });
const count = z.number().int().min(0);

export const LiveErrorBody = z.strictObject({
  statusCode: z.number().int().min(400).max(599),
  error: z.string().min(1),
  message: z.array(z.string()),
});

const LiveImage = z.strictObject({
  id: z.string(),
  url: z.url(),
  urlFull: z.url(),
  validate: z.boolean(),
  free: z.boolean(),
  titles: z.record(z.string(), z.string()),
});

const LivePurchasedImage = z.strictObject({
  id: z.string(),
  url: z.url(),
  urlFull: z.url(),
  urlUpscale: z.url().optional(),
  urlUpscaleUHD: z.url(),
  downloadedAt: dateTime,
});

export const LiveImageGeneration = z.strictObject({
  id: z.string(),
  name: z.string(),
  prompt: z.string(),
  // 5 is a value the live service sends without naming it.
  status: z.number().int().min(0).max(5),
  params: z.array(z.strictObject({ name: z.enum(LIVE_PARAM_NAMES), value: z.string() })),
  images: z.array(LiveImage),
  nbImages: count,
  tags: z.array(z.string()),
  metaData: z.record(z.string(), z.unknown()),
  createdAt: dateTime,
  processMode: z.enum(["relax", "fast"]).optional(),
  // additions
  mode: z.enum(["simple", "advanced"]),
  optimizePrompt: z.boolean(),
  additionalPrompt: z.string().optional(),
  optimizedPrompt: z.string().optional(),
  failureReason: z.string().optional(),
  progress: z.number().int().min(0).max(100).optional(),
  engine: z.strictObject({ name: z.string(), model: z.string().optional() }).optional(),
});

const LiveWebhook = z.strictObject({
  id: z.string(),
  apiKeyId: z.string(),
  url: z.url(),
  // additions (observed-live-api.md asks for the events)
  events: z.array(z.enum(LIVE_EVENTS)),
  createdAt: dateTime,
  disabled: z.boolean(),
  disabledReason: z.string().optional(),
  disabledAt: dateTime.optional(),
  failingSince: dateTime.optional(),
});

export const LiveWebhookEnvelope = z.strictObject({
  id: z.string(),
  api_version: z.number(),
  created: z.number().int(),
  type: z.enum(LIVE_EVENTS),
  data: z.union([LiveImageGeneration, z.record(z.string(), z.unknown())]),
});

/** How each operation's success answers: a strict JSON schema, an empty body, or a JPEG. */
export type LiveAnswer = z.ZodType | "empty" | "image/jpeg";

export const LIVE_ANSWERS: Record<OperationId, LiveAnswer> = {
  health: z.strictObject({
    status: z.enum(["ok", "unavailable"]),
    checks: z.strictObject({ database: z.enum(["ok", "down"]), redis: z.enum(["ok", "down"]) }),
  }),
  liveness: z.strictObject({ status: z.literal("ok") }),
  checkApiKey: z.strictObject({
    email: z.email(),
    name: z.string().optional(),
    // additions
    apiKeyId: z.string(),
    apiKeyPrefix: z.string(),
  }),
  getCredits: z.strictObject({
    credits: z.array(
      z.strictObject({
        type: z.enum(LIVE_CREDIT_TYPES),
        credit: z.number().int(),
        creditTotal: z.number().int(),
        unlimited: z.boolean(),
      }),
    ),
  }),
  searchImages: z.strictObject({ filteredResults: count, images: z.array(LiveImage) }),
  displayImage: "image/jpeg",
  buyImage: LivePurchasedImage,
  downloadImage: "image/jpeg",
  downloadedImages: z.strictObject({ filteredResults: count, images: z.array(LivePurchasedImage) }),
  signedImageFile: "image/jpeg",
  createImageGeneration: LiveImageGeneration,
  updateImageGeneration: LiveImageGeneration,
  retryImageGeneration: LiveImageGeneration,
  findImageGenerations: z.strictObject({ filteredResults: count, prints: z.array(LiveImageGeneration) }),
  getImageGeneration: LiveImageGeneration,
  // addition: the live service answers an empty body; clients ignore it
  deleteImageGenerations: z.strictObject({ deleted: z.array(z.string()), notFound: z.array(z.string()) }),
  // addition: the secret
  subscribeWebhook: z.strictObject({ webhookId: z.string(), secret: z.string() }),
  getWebhook: LiveWebhook,
  unsubscribeWebhook: "empty",
  // additions: the routes below are not in the live service
  listWebhooks: z.strictObject({ webhooks: z.array(LiveWebhook) }),
  testWebhook: z.strictObject({ eventId: z.string() }),
  listWebhookAttempts: z.strictObject({
    attempts: z.array(
      z.strictObject({
        eventId: z.string(),
        attempt: z.number().int().min(1),
        statusCode: z.number().int().optional(),
        durationMs: z.number().int().min(0),
        error: z.string().optional(),
        createdAt: dateTime,
      }),
    ),
  }),
  enableWebhook: LiveWebhook,
};
