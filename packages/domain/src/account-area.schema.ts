import { z } from "zod";
import { PlanSchema } from "./accounts.schema.js";
import { DateTimeSchema } from "./common.schema.js";

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
  .object({ isSignUpOpen: z.boolean() })
  .meta({ id: "WebAreaSettings", description: "What the web app shows before anyone signs in." });
export type WebAreaSettings = z.infer<typeof WebAreaSettingsSchema>;

export const AccountApiKeySchema = z
  .object({
    id: z.string(),
    name: z.string(),
    prefix: z.string().describe("The first characters of the key, to recognise it."),
    createdAt: DateTimeSchema,
    lastUsedAt: DateTimeSchema.nullable(),
    revokedAt: DateTimeSchema.nullable(),
  })
  .meta({ id: "AccountApiKey", description: "An API key of the account (never the key itself)." });
export type AccountApiKey = z.infer<typeof AccountApiKeySchema>;

export const AccountApiKeyListSchema = z
  .object({ apiKeys: z.array(AccountApiKeySchema) })
  .meta({ id: "AccountApiKeyList" });
export type AccountApiKeyList = z.infer<typeof AccountApiKeyListSchema>;

export const CreateApiKeyRequestSchema = z
  .strictObject({ name: z.string().trim().min(1).max(100) })
  .meta({ id: "CreateApiKeyRequest" });
export type CreateApiKeyRequest = z.infer<typeof CreateApiKeyRequestSchema>;

export const CreatedApiKeySchema = z
  .object({ apiKey: AccountApiKeySchema, key: z.string().describe("The key itself: shown only here.") })
  .meta({ id: "CreatedApiKey" });
export type CreatedApiKey = z.infer<typeof CreatedApiKeySchema>;

export const ApiKeyIdParamsSchema = z.object({ apiKeyId: z.uuid() });
