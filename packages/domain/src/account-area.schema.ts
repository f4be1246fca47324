import { z } from "zod";
import { PlanSchema } from "./accounts.schema.js";

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
