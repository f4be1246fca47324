import { z } from "zod";
import { AccountProfileSchema } from "./account-area.schema.js";
import { CreditBucketTypeSchema, PlanSchema } from "./accounts.schema.js";
import { DateTimeSchema, FilteredResultsSchema, QueryPaginationSchema } from "./common.schema.js";

/** What the web area's admin pages exchange (accounts flagged admin only). */

export const AdminAccountSchema = AccountProfileSchema.extend({
  createdAt: DateTimeSchema,
  hasPassword: z.boolean().describe("False until the owner has used their invitation."),
  hasPendingInvitation: z.boolean().describe("An invitation link is out, not used and not expired."),
  isDisabled: z.boolean().describe("Its sign-ins, sessions and API keys are refused."),
  liveApiKeyCount: z.number().int().min(0).describe("API keys not revoked."),
}).meta({ id: "AdminAccount" });
export type AdminAccount = z.infer<typeof AdminAccountSchema>;

export const AdminAccountListQuerySchema = QueryPaginationSchema.extend({
  search: z.string().trim().max(200).optional().describe("Part of the email or name."),
});
export type AdminAccountListQuery = z.infer<typeof AdminAccountListQuerySchema>;

export const AdminAccountListSchema = z
  .object({ filteredResults: FilteredResultsSchema, accounts: z.array(AdminAccountSchema) })
  .meta({ id: "AdminAccountList" });
export type AdminAccountList = z.infer<typeof AdminAccountListSchema>;

export const MAX_GRANT = 1_000_000;

export const StartingCreditsSchema = z
  .partialRecord(CreditBucketTypeSchema, z.number().int().min(0).max(MAX_GRANT))
  .describe("Credits per bucket the new account starts with, e.g. { f_images: 100 }.");

export const InviteAccountRequestSchema = z
  .strictObject({
    email: z.email().max(320),
    name: z.string().trim().max(200).optional(),
    plan: PlanSchema.default("standard"),
    credits: StartingCreditsSchema.default({}),
    isAdmin: z.boolean().default(false).describe("Opens the admin area to the account."),
  })
  .meta({ id: "InviteAccountRequest" });
export type InviteAccountRequest = z.infer<typeof InviteAccountRequestSchema>;

/** A one-time link an admin hands over (a password reset), and whether it was mailed. */
export const IssuedLinkSchema = z
  .object({
    link: z.url().describe("The one-time link; shown only here."),
    expiresAt: DateTimeSchema,
    mail: z.object({
      status: z.enum(["sent", "failed", "not-configured"]),
      detail: z.string().nullable(),
    }),
  })
  .meta({ id: "IssuedLink" });
export type IssuedLink = z.infer<typeof IssuedLinkSchema>;

export const SetDisabledRequestSchema = z
  .strictObject({
    isDisabled: z
      .boolean()
      .describe("Refuses (true) or allows again (false) the account's sign-ins and keys."),
  })
  .meta({ id: "SetDisabledRequest" });
export type SetDisabledRequest = z.infer<typeof SetDisabledRequestSchema>;

export const INVITATION_MAIL_STATUSES = ["sent", "failed", "not-configured"] as const;

export const InvitationSchema = z
  .object({
    email: z.email(),
    isAdmin: z.boolean(),
    isNewAccount: z.boolean().describe("Always true: an existing account is not invited."),
    link: z.url().describe("The one-time link that sets the password; shown only here."),
    expiresAt: DateTimeSchema,
    mail: z.object({
      status: z
        .enum(INVITATION_MAIL_STATUSES)
        .describe("not-configured: no SMTP_URL, hand the link over yourself."),
      detail: z.string().nullable().describe("Why the mail server refused it, when it did."),
    }),
  })
  .meta({ id: "Invitation" });
export type Invitation = z.infer<typeof InvitationSchema>;

export const GrantCreditsRequestSchema = z
  .strictObject({
    type: CreditBucketTypeSchema,
    amount: z
      .number()
      .int()
      .min(-MAX_GRANT)
      .max(MAX_GRANT)
      .refine((amount) => amount !== 0, "must not be 0")
      .describe("Negative to take credits away."),
    note: z.string().trim().max(200).optional().describe("Recorded as the ledger entry's reference."),
  })
  .meta({ id: "GrantCreditsRequest" });
export type GrantCreditsRequest = z.infer<typeof GrantCreditsRequestSchema>;

export const AccountIdParamsSchema = z.object({ accountId: z.uuid() });

export const AccountApiKeyParamsSchema = z.object({ accountId: z.uuid(), apiKeyId: z.uuid() });

export const SetAdminRequestSchema = z
  .strictObject({
    isAdmin: z.boolean().describe("Opens (true) or closes (false) the admin area to the account."),
  })
  .meta({ id: "SetAdminRequest" });
export type SetAdminRequest = z.infer<typeof SetAdminRequestSchema>;

export const AuditEntrySchema = z
  .object({
    id: z.string(),
    createdAt: DateTimeSchema,
    action: z
      .string()
      .describe("What was done, e.g. credits.granted, api_key.revoked, account.admin_granted."),
    actor: z
      .string()
      .describe('How it was done: "session:<id>", "api-key:<id>", "admin" (the CLI), "system".'),
    actorEmail: z.string().nullable().describe("The account that did it, when a session or an API key did."),
    accountEmail: z.string().nullable().describe("The account it was done to."),
    details: z.record(z.string(), z.unknown()),
  })
  .meta({ id: "AuditEntry" });
export type AuditEntry = z.infer<typeof AuditEntrySchema>;

export const AuditLogPageSchema = z
  .object({ filteredResults: FilteredResultsSchema, entries: z.array(AuditEntrySchema) })
  .meta({ id: "AuditLogPage" });
export type AuditLogPage = z.infer<typeof AuditLogPageSchema>;

export const AdminSettingsSchema = z
  .object({
    queueDashboardPath: z
      .string()
      .nullable()
      .describe("Where the queue dashboard is; null when it is not enabled (QUEUE_DASHBOARD)."),
    isMailConfigured: z.boolean().describe("Invitations are mailed (SMTP_URL is set)."),
  })
  .meta({ id: "AdminSettings" });
export type AdminSettings = z.infer<typeof AdminSettingsSchema>;
