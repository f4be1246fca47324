import { ApiKeyCheckSchema, CreditsSchema } from "./accounts.schema.js";
import { HealthSchema, LivenessSchema } from "./common.schema.js";
import {
  CreateImageGenerationRequestSchema,
  DeleteImageGenerationsRequestSchema,
  DeleteImageGenerationsResponseSchema,
  FindImageGenerationsQuerySchema,
  ImageGenerationIdParamsSchema,
  ImageGenerationListSchema,
  ImageGenerationSchema,
  PrintIdParamsSchema,
  UpdateImageGenerationRequestSchema,
} from "./generations.schema.js";
import {
  DisplayImageParamsSchema,
  DownloadedImagesRequestSchema,
  DownloadedImagesResponseSchema,
  ImageIdRequestSchema,
  PurchasedImageSchema,
  SearchImagesRequestSchema,
  SearchImagesResponseSchema,
  SignedImageFileParamsSchema,
  SignedImageFileQuerySchema,
} from "./images.schema.js";
import { defineOperation } from "./operation.js";
import {
  ApiKeyWebhookIdParamsSchema,
  ApiWebhookIdParamsSchema,
  EnableWebhookRequestSchema,
  SubscribeWebhookRequestSchema,
  SubscribeWebhookResponseSchema,
  WebhookAttemptListSchema,
  WebhookListSchema,
  WebhookSchema,
  WebhookTestResponseSchema,
} from "./webhooks.schema.js";

const NO_SUCH_WEBHOOK = "No webhook with this id in the account.";

/** Every route the API serves. Later areas add theirs here. */
export const operations = {
  health: defineOperation({
    operationId: "health",
    method: "GET",
    path: "/health",
    tag: "Operations",
    summary: "Health check",
    description: "Checks the database and Redis; 503 when either is down. No key needed.",
    auth: "none",
    success: { status: 200, description: "Everything answers.", schema: HealthSchema },
    errors: { 503: "A dependency is down; the message names it." },
  }),
  liveness: defineOperation({
    operationId: "liveness",
    method: "GET",
    path: "/health/live",
    tag: "Operations",
    summary: "Liveness check",
    description:
      "Answers as long as the process serves HTTP, without checking dependencies (for restarts by an orchestrator). No key needed.",
    auth: "none",
    success: { status: 200, description: "The process is up.", schema: LivenessSchema },
  }),
  checkApiKey: defineOperation({
    operationId: "checkApiKey",
    method: "GET",
    path: "/v1/api-keys/check",
    tag: "API keys",
    summary: "Check API Key",
    description: "Answers with the account that owns the key sent in the api-key header.",
    auth: "required",
    success: { status: 200, description: "The key is valid.", schema: ApiKeyCheckSchema },
  }),
  getCredits: defineOperation({
    operationId: "getCredits",
    method: "GET",
    path: "/v1/credit",
    tag: "API keys",
    summary: "Credits",
    description: "The account's credit buckets, each computed from its ledger.",
    auth: "required",
    success: { status: 200, description: "One entry per bucket of the account.", schema: CreditsSchema },
  }),
  searchImages: defineOperation({
    operationId: "searchImages",
    method: "POST",
    path: "/v1/images/search",
    tag: "Images",
    summary: "Search Image",
    description: `Keywords are matched in every title language and the tags, with stemming and accents folded
(English and French); several words find images holding any of them, those holding all of them ranking
first. When no image matches, each word is corrected to the closest word of the catalogue (trigram
similarity), so a misspelled word still finds images. Sorted by relevance, the first 1000 matches of all
the words and of any word are ranked; pages beyond them are empty. filteredResults is exact up to 1000
matches; above that it is the database's estimate.`,
    // A search reads only.
    idempotent: true,
    changesNothing: true,
    auth: "required",
    body: SearchImagesRequestSchema,
    success: { status: 200, description: "One page of matching images.", schema: SearchImagesResponseSchema },
  }),
  displayImage: defineOperation({
    operationId: "displayImage",
    method: "GET",
    path: "/v1/images/{format}/{imageId}.jpg",
    tag: "Images",
    summary: "Display Image",
    description: `No key needed. preview: a JPEG at most 512 px on its long edge, watermarked. full: the original
size, watermarked unless the image is free or the api-key header names an account that bought it.
Answers carry a strong ETag and long caching; If-None-Match gives 304; HEAD is supported.`,
    auth: "optional",
    params: DisplayImageParamsSchema,
    success: { status: 200, description: "The JPEG.", contentType: "image/jpeg" },
    errors: {
      302: "With S3 storage and S3_DISPLAY_REDIRECT_SECONDS: the file in the bucket, signed for that long.",
      304: "Not modified (If-None-Match matched the ETag).",
      404: "No image with this id.",
    },
  }),
  buyImage: defineOperation({
    operationId: "buyImage",
    method: "POST",
    path: "/v1/images/buy",
    tag: "Images",
    summary: "Buy Image",
    description: `Debits the image's price from the f_images credits the first time the account obtains it (Buy or
Download); later calls cost nothing and keep the first downloadedAt. Answers direct links: url is the
preview; urlFull, urlUpscale (2×) and urlUpscaleUHD (3840 px long edge) are clean files behind signed
links that expire (LINK_TTL_SECONDS).`,
    // An image is debited once per account, however often it is bought.
    idempotent: true,
    auth: "required",
    body: ImageIdRequestSchema,
    success: { status: 200, description: "The purchased image and its links.", schema: PurchasedImageSchema },
    errors: { 402: "Not enough f_images credits; nothing was debited.", 404: "No image with this id." },
  }),
  downloadImage: defineOperation({
    operationId: "downloadImage",
    method: "POST",
    path: "/v1/images/download",
    tag: "Images",
    summary: "Download Image",
    description: "Like Buy Image, but answers the clean full-size JPEG itself.",
    // An image is debited once per account, however often it is downloaded.
    idempotent: true,
    auth: "required",
    body: ImageIdRequestSchema,
    success: { status: 200, description: "The JPEG, as an attachment.", contentType: "image/jpeg" },
    errors: { 402: "Not enough f_images credits; nothing was debited.", 404: "No image with this id." },
  }),
  downloadedImages: defineOperation({
    operationId: "downloadedImages",
    method: "POST",
    path: "/v1/images/downladed",
    tag: "Images",
    summary: "Get Download Images",
    description:
      "The images the account has bought or downloaded, newest first. The path is spelled as the live service spells it.",
    // A listing reads only.
    idempotent: true,
    changesNothing: true,
    auth: "required",
    body: DownloadedImagesRequestSchema,
    success: {
      status: 200,
      description: "One page of obtained images.",
      schema: DownloadedImagesResponseSchema,
    },
  }),
  signedImageFile: defineOperation({
    operationId: "signedImageFile",
    method: "GET",
    path: "/v1/images/files/{imageId}/{rendition}.jpg",
    tag: "Images",
    summary: "Signed image file",
    description:
      "The clean file behind a link answered by Buy Image; the link is signed and expires. No key needed.",
    auth: "none",
    params: SignedImageFileParamsSchema,
    query: SignedImageFileQuerySchema,
    success: { status: 200, description: "The JPEG, as an attachment.", contentType: "image/jpeg" },
    errors: { 403: "The link is not valid or has expired.", 404: "No image with this id." },
  }),
  createImageGeneration: defineOperation({
    operationId: "createImageGeneration",
    method: "POST",
    path: "/v1/image-generations",
    tag: "Image generations",
    summary: "Create Image generation",
    description: `Queues a generation of 4 images and answers it in status 1 (Pending); webhooks and Get follow its
progress: 2 Processing, then 3 Done with its 4 images, or 4 Error with failureReason. One f_images_print
credit is held from creation and given back if the generation ends in Error.
Simple mode: a plain description (third-party flags such as --ar are refused: use params) with the
params of the spec's table; stylize accepts 0-1000 (the spec's text says 0-100, its value form 0-1000).
Advanced mode: a full Midjourney command (description, then --ar, --chaos, --stylize, --no, --seed, --weird,
--q, --exp, --iw, --sref, --sw, --v, --niji, --tile, --raw, --style raw); params and optimizePrompt are refused.
processMode is for dedicated-plan accounts (403 otherwise): it defaults to fast while their fast quota
(f_images_print_fast) lasts, then relax; an explicit fast with the quota spent is 402. Other accounts run relax.
Fast generations are taken before relax ones. A description holding a refused term ends in Error with
failureReason "description not accepted". The 4 images are titled with the description; only the
account can buy them, search does not list them, and their Display links work for whoever has one.`,
    auth: "required",
    body: CreateImageGenerationRequestSchema,
    success: { status: 201, description: "The generation, Pending.", schema: ImageGenerationSchema },
    errors: {
      402: "No f_images_print credit left (or, with processMode fast, no fast quota); nothing was written.",
      403: "processMode was given by an account that is not on the dedicated plan.",
    },
  }),
  updateImageGeneration: defineOperation({
    operationId: "updateImageGeneration",
    method: "PUT",
    path: "/v1/image-generations/{printId}",
    tag: "Image generations",
    summary: "Update Image Generation",
    description: `Changes only the fields sent; any field of Create but processMode (chosen at creation) may be sent.
Refused with 409 while the generation is Pending or Processing. The prompt is checked against the mode the
generation will have; a switch to advanced mode drops the simple-mode params and optimizePrompt. It does not
generate again: after changing a generation in Error, Retry runs it.`,
    // The same changes give the same generation.
    idempotent: true,
    auth: "required",
    params: PrintIdParamsSchema,
    body: UpdateImageGenerationRequestSchema,
    success: { status: 200, description: "The generation as changed.", schema: ImageGenerationSchema },
    errors: {
      404: "No generation with this id in the account.",
      409: "The generation is Pending or Processing.",
    },
  }),
  retryImageGeneration: defineOperation({
    operationId: "retryImageGeneration",
    method: "POST",
    path: "/v1/image-generations/retry/{printId}",
    tag: "Image generations",
    summary: "Retry Image Generation",
    description:
      "Queues a generation in Error (4) again: it goes back to Pending (1), holding an f_images_print credit again. No body.",
    auth: "required",
    params: PrintIdParamsSchema,
    success: { status: 200, description: "The generation, Pending.", schema: ImageGenerationSchema },
    errors: {
      402: "No f_images_print credit left.",
      404: "No generation with this id in the account.",
      409: "The generation is not in Error.",
    },
  }),
  findImageGenerations: defineOperation({
    operationId: "findImageGenerations",
    method: "GET",
    path: "/v1/image-generations",
    tag: "Image generations",
    summary: "Find Image Generations",
    description: "The account's generations, newest first unless sort=oldest; name matches part of the name.",
    auth: "required",
    query: FindImageGenerationsQuerySchema,
    success: { status: 200, description: "One page of generations.", schema: ImageGenerationListSchema },
  }),
  getImageGeneration: defineOperation({
    operationId: "getImageGeneration",
    method: "GET",
    path: "/v1/image-generations/{imageGenerationId}",
    tag: "Image generations",
    summary: "Get Image Generation",
    auth: "required",
    params: ImageGenerationIdParamsSchema,
    success: { status: 200, description: "The generation.", schema: ImageGenerationSchema },
    errors: { 404: "No generation with this id in the account." },
  }),
  deleteImageGenerations: defineOperation({
    operationId: "deleteImageGenerations",
    method: "DELETE",
    path: "/v1/image-generations",
    tag: "Image generations",
    summary: "Delete Image Generation(s)",
    description: `Deletes the generations and their images, except images the account bought (they stay in the
downloaded list). A generation still running stops; its held credit is given back. Like the live service,
ids that name no generation of the account are not an error: the answer lists what was deleted and what was
not found. An empty list is refused (400).`,
    auth: "required",
    body: DeleteImageGenerationsRequestSchema,
    success: {
      status: 200,
      description: "What was deleted and what was not found.",
      schema: DeleteImageGenerationsResponseSchema,
    },
  }),
  subscribeWebhook: defineOperation({
    operationId: "subscribeWebhook",
    method: "POST",
    path: "/v1/api-keys/webhook/subscribe",
    tag: "Webhooks",
    summary: "Subscribe",
    description: `Registers an endpoint for the account's events, owned by the key that sends this request. Without
events it receives print.completed and print.failed. The URL must be https (http only where the server allows
it) and its host must not resolve to a loopback, private, link-local, multicast or cloud-metadata address
(checked again at every delivery). Each delivery is a POST of the WebhookEnvelope, signed per Standard
Webhooks (webhook-id, webhook-timestamp, webhook-signature) with the secret answered here, once. A 2xx within
15 s is success; anything else (a redirect too) is retried about 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h
later (Retry-After honoured on 429 and 503). 410 Gone disables the webhook at once; so do deliveries failing for 5 days (by
default) without a success, and its other webhooks then receive a webhook.disabled event. Delivery is at least once and not strictly ordered: dedupe on webhook-id, order by data.status.`,
    auth: "required",
    body: SubscribeWebhookRequestSchema,
    success: { status: 201, description: "Subscribed.", schema: SubscribeWebhookResponseSchema },
    errors: {
      400: "The URL is not allowed (scheme, or an address inside the network), or an event is unknown.",
      409: "The account has as many webhooks as it may.",
    },
  }),
  getWebhook: defineOperation({
    operationId: "getWebhook",
    method: "GET",
    path: "/v1/api-keys/webhook/{apiKeyWebhookId}",
    tag: "Webhooks",
    summary: "Get Webhook",
    description: "The webhook, with the id (never the key) of the API key that created it.",
    auth: "required",
    params: ApiKeyWebhookIdParamsSchema,
    success: { status: 200, description: "The webhook.", schema: WebhookSchema },
    errors: { 404: NO_SUCH_WEBHOOK },
  }),
  unsubscribeWebhook: defineOperation({
    operationId: "unsubscribeWebhook",
    method: "DELETE",
    path: "/v1/api-keys/webhook/unsubscribe/{apiWebhookId}",
    tag: "Webhooks",
    summary: "Unsubscribe",
    description:
      "Removes the webhook; deliveries still pending for it are dropped. Answers 200 with an empty body.",
    auth: "required",
    params: ApiWebhookIdParamsSchema,
    success: { status: 200, description: "Removed." },
    errors: { 404: NO_SUCH_WEBHOOK },
  }),
  listWebhooks: defineOperation({
    operationId: "listWebhooks",
    method: "GET",
    path: "/v1/api-keys/webhooks",
    tag: "Webhooks",
    summary: "List webhooks",
    description: "Every webhook of the account, oldest first (not in the original service).",
    auth: "required",
    success: { status: 200, description: "The webhooks.", schema: WebhookListSchema },
  }),
  testWebhook: defineOperation({
    operationId: "testWebhook",
    method: "POST",
    path: "/v1/api-keys/webhook/{apiKeyWebhookId}/test",
    tag: "Webhooks",
    summary: "Send a test event",
    description:
      "Queues a test event for this webhook alone, delivered and retried like any other (not in the original service).",
    auth: "required",
    params: ApiKeyWebhookIdParamsSchema,
    success: { status: 202, description: "Queued.", schema: WebhookTestResponseSchema },
    errors: { 404: NO_SUCH_WEBHOOK, 409: "The webhook is disabled: enable it first." },
  }),
  listWebhookAttempts: defineOperation({
    operationId: "listWebhookAttempts",
    method: "GET",
    path: "/v1/api-keys/webhook/{apiKeyWebhookId}/attempts",
    tag: "Webhooks",
    summary: "Recent delivery attempts",
    description:
      "The latest 100 delivery attempts to this webhook, newest first, with the status, duration and error of each (not in the original service).",
    auth: "required",
    params: ApiKeyWebhookIdParamsSchema,
    success: { status: 200, description: "The attempts.", schema: WebhookAttemptListSchema },
    errors: { 404: NO_SUCH_WEBHOOK },
  }),
  enableWebhook: defineOperation({
    operationId: "enableWebhook",
    method: "POST",
    path: "/v1/api-keys/webhook/{apiKeyWebhookId}/enable",
    tag: "Webhooks",
    summary: "Re-enable a webhook",
    description: `Lets a disabled webhook receive new events again, its failure run forgotten (not in the original
service). Events that came while it was disabled are recorded; they are sent only with replay: true, which also
sends again every event not delivered since its deliveries began failing. A body is optional.`,
    auth: "required",
    params: ApiKeyWebhookIdParamsSchema,
    body: EnableWebhookRequestSchema,
    success: { status: 200, description: "The webhook, enabled.", schema: WebhookSchema },
    errors: { 404: NO_SUCH_WEBHOOK },
  }),
} as const;

export type Operations = typeof operations;
export type OperationId = keyof Operations;
