import { z } from "zod";
import { PlanSchema } from "./accounts.schema.js";
import { DateTimeSchema, FilterDateTimeSchema } from "./common.schema.js";

/** What the web area's session routes exchange. The resources themselves reuse the /v1 schemas. */

export const PASSWORD_MIN_LENGTH = 10;
export const PasswordSchema = z
  .string()
  .min(PASSWORD_MIN_LENGTH, `must be at least ${PASSWORD_MIN_LENGTH} characters`)
  .max(1024);

export const SignInRequestSchema = z
  .strictObject({ email: z.email().max(320), password: z.string().min(1).max(1024) })
  .meta({ id: "SignInRequest" });
export type SignInRequest = z.infer<typeof SignInRequestSchema>;

export const SignUpRequestSchema = z
  .strictObject({ email: z.email().max(320), password: PasswordSchema, name: z.string().max(200).optional() })
  .meta({ id: "SignUpRequest" });
export type SignUpRequest = z.infer<typeof SignUpRequestSchema>;

export const RedeemLinkRequestSchema = z
  .strictObject({
    token: z.string().min(20).max(200),
    password: PasswordSchema.optional().describe("Required by an invitation (a set-password link)."),
  })
  .meta({ id: "RedeemLinkRequest" });
export type RedeemLinkRequest = z.infer<typeof RedeemLinkRequestSchema>;

export const AccountProfileSchema = z
  .object({
    id: z.string(),
    email: z.email(),
    name: z.string().nullable(),
    plan: PlanSchema,
    isAdmin: z.boolean(),
    hasPassword: z.boolean().describe("False for an account that signs in by one-time links only."),
  })
  .meta({ id: "AccountProfile" });
export type AccountProfile = z.infer<typeof AccountProfileSchema>;

export const SessionSchema = z
  .object({
    account: AccountProfileSchema,
    csrfToken: z.string().describe("Send it as x-csrf-token with every state change."),
  })
  .meta({ id: "Session" });
export type Session = z.infer<typeof SessionSchema>;

export const WebAreaSettingsSchema = z
  .object({
    isSignUpOpen: z.boolean(),
    isMailConfigured: z
      .boolean()
      .describe("A forgotten password is reset by a mailed link; otherwise an admin issues the link."),
  })
  .meta({ id: "WebAreaSettings", description: "What the web app shows before anyone signs in." });
export type WebAreaSettings = z.infer<typeof WebAreaSettingsSchema>;

/** "full": every operation; "read-only": searches, displays and lists, and gets 403 on what spends or changes. */
export const API_KEY_SCOPES = ["full", "read-only"] as const;
export const ApiKeyScopeSchema = z.enum(API_KEY_SCOPES);
export type ApiKeyScope = z.infer<typeof ApiKeyScopeSchema>;

export const ChangePasswordRequestSchema = z
  .strictObject({
    currentPassword: z
      .string()
      .max(1024)
      .optional()
      .describe("Required when the account has a password already."),
    newPassword: PasswordSchema,
  })
  .meta({ id: "ChangePasswordRequest" });
export type ChangePasswordRequest = z.infer<typeof ChangePasswordRequestSchema>;

export const ForgotPasswordRequestSchema = z
  .strictObject({ email: z.email().max(320) })
  .meta({ id: "ForgotPasswordRequest" });
export type ForgotPasswordRequest = z.infer<typeof ForgotPasswordRequestSchema>;

export const AccountSessionSchema = z
  .object({
    id: z.string(),
    createdAt: DateTimeSchema,
    expiresAt: DateTimeSchema,
    userAgent: z.string().nullable().describe("The browser that opened it, as it named itself."),
    isCurrent: z.boolean().describe("The session of this request."),
  })
  .meta({ id: "AccountSession" });
export type AccountSession = z.infer<typeof AccountSessionSchema>;

export const AccountSessionListSchema = z
  .object({ sessions: z.array(AccountSessionSchema) })
  .meta({ id: "AccountSessionList" });
export type AccountSessionList = z.infer<typeof AccountSessionListSchema>;

export const SessionIdParamsSchema = z.object({ sessionId: z.uuid() });

export const AccountApiKeySchema = z
  .object({
    id: z.string(),
    name: z.string(),
    prefix: z.string().describe("The first characters of the key, to recognise it."),
    scope: ApiKeyScopeSchema,
    createdAt: DateTimeSchema,
    lastUsedAt: DateTimeSchema.nullable(),
    expiresAt: DateTimeSchema.nullable().describe("Refused from then on; null: never expires."),
    revokedAt: DateTimeSchema.nullable(),
  })
  .meta({ id: "AccountApiKey", description: "An API key of the account (never the key itself)." });
export type AccountApiKey = z.infer<typeof AccountApiKeySchema>;

export const AccountApiKeyListSchema = z
  .object({ apiKeys: z.array(AccountApiKeySchema) })
  .meta({ id: "AccountApiKeyList" });
export type AccountApiKeyList = z.infer<typeof AccountApiKeyListSchema>;

export const CreateApiKeyRequestSchema = z
  .strictObject({
    name: z.string().trim().min(1).max(100),
    scope: ApiKeyScopeSchema.default("full"),
    expiresAt: FilterDateTimeSchema.refine((value) => Date.parse(value) > Date.now(), "must be in the future")
      .optional()
      .describe("When the key stops working; none: it works until revoked."),
  })
  .meta({ id: "CreateApiKeyRequest" });
export type CreateApiKeyRequest = z.infer<typeof CreateApiKeyRequestSchema>;

export const CreatedApiKeySchema = z
  .object({ apiKey: AccountApiKeySchema, key: z.string().describe("The key itself: shown only here.") })
  .meta({ id: "CreatedApiKey" });
export type CreatedApiKey = z.infer<typeof CreatedApiKeySchema>;

export const ApiKeyIdParamsSchema = z.object({ apiKeyId: z.uuid() });
