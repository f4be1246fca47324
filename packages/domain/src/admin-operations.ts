import { CreditsSchema } from "./accounts.schema.js";
import {
  AccountIdParamsSchema,
  AdminAccountListQuerySchema,
  AdminAccountListSchema,
  AdminSettingsSchema,
  GrantCreditsRequestSchema,
  InvitationSchema,
  InviteAccountRequestSchema,
  RevokedApiKeysSchema,
} from "./admin-area.schema.js";
import { defineOperation } from "./operation.js";

const NOT_ADMIN = "The signed-in account is not an admin.";
const NO_SUCH_ACCOUNT = "No account with this id.";

/** The web area's admin pages: the admin CLI's operations, for accounts flagged admin. */
export const adminOperations = {
  adminSettings: defineOperation({
    operationId: "adminSettings",
    method: "GET",
    path: "/account/admin/settings",
    tag: "Admin",
    summary: "What the admin area offers",
    auth: "admin",
    success: { status: 200, description: "The settings.", schema: AdminSettingsSchema },
    errors: { 403: NOT_ADMIN },
  }),
  listAccounts: defineOperation({
    operationId: "listAccounts",
    method: "GET",
    path: "/account/admin/accounts",
    tag: "Admin",
    summary: "Accounts",
    description: "Newest first; search matches part of the email or name.",
    auth: "admin",
    query: AdminAccountListQuerySchema,
    success: { status: 200, description: "One page of accounts.", schema: AdminAccountListSchema },
    errors: { 403: NOT_ADMIN },
  }),
  inviteAccount: defineOperation({
    operationId: "inviteAccount",
    method: "POST",
    path: "/account/admin/invitations",
    tag: "Admin",
    summary: "Invite an account",
    description:
      "As `admin account invite`: creates the account when there is none and answers a one-time link that sets its password, mailed too when SMTP_URL is set.",
    auth: "admin",
    body: InviteAccountRequestSchema,
    success: { status: 201, description: "The invitation.", schema: InvitationSchema },
    errors: { 403: NOT_ADMIN },
  }),
  grantAccountCredits: defineOperation({
    operationId: "grantAccountCredits",
    method: "POST",
    path: "/account/admin/accounts/{accountId}/credits",
    tag: "Admin",
    summary: "Grant credits",
    description:
      "As `admin credits grant`: one ledger entry naming the admin's session. A negative amount takes away.",
    auth: "admin",
    params: AccountIdParamsSchema,
    body: GrantCreditsRequestSchema,
    success: { status: 200, description: "The account's buckets after the grant.", schema: CreditsSchema },
    errors: {
      403: NOT_ADMIN,
      404: NO_SUCH_ACCOUNT,
      409: "Taking that much away would leave the bucket below zero.",
    },
  }),
  revokeAccountApiKeys: defineOperation({
    operationId: "revokeAccountApiKeys",
    method: "POST",
    path: "/account/admin/accounts/{accountId}/api-keys/revoke",
    tag: "Admin",
    summary: "Revoke every API key of an account",
    description: "As `admin key revoke` for each live key, with its audit row; requests with them get 401.",
    auth: "admin",
    params: AccountIdParamsSchema,
    success: { status: 200, description: "How many keys were revoked.", schema: RevokedApiKeysSchema },
    errors: { 403: NOT_ADMIN, 404: NO_SUCH_ACCOUNT },
  }),
} as const;
