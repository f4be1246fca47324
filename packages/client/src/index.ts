export { GenerationFailedError, ImagehubClient, type WaitOptions } from "./client.js";
export { ApiError, ImagehubError, NetworkError, TimeoutError, UnexpectedResponseError } from "./errors.js";
export type { CallOptions, ClientOptions } from "./transport.js";
export { verifyWebhook, WebhookVerificationError } from "./webhooks.js";
