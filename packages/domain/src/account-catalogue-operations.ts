import { CreditLedgerPageSchema, CreditLedgerQuerySchema } from "./credit-ledger.schema.js";
import { forTheSession } from "./for-the-session.js";
import { defineOperation } from "./operation.js";
import { operations } from "./operations.js";

/** The web area's catalogue and credits pages: the /v1 operations, for the signed-in account. */
export const accountCatalogueOperations = {
  searchAccountImages: forTheSession(operations.searchImages, {
    operationId: "searchAccountImages",
    path: "/account/images/search",
  }),
  buyAccountImage: forTheSession(operations.buyImage, {
    operationId: "buyAccountImage",
    path: "/account/images/buy",
  }),
  downloadedAccountImages: forTheSession(operations.downloadedImages, {
    operationId: "downloadedAccountImages",
    path: "/account/images/downloaded",
  }),
  getAccountCredits: forTheSession(operations.getCredits, {
    operationId: "getAccountCredits",
    path: "/account/credits",
  }),
  listAccountCreditLedger: defineOperation({
    operationId: "listAccountCreditLedger",
    method: "GET",
    path: "/account/credits/ledger",
    tag: "Account",
    summary: "The account's credit ledger",
    description: "Every change of every bucket, newest first, a page at a time.",
    auth: "session",
    query: CreditLedgerQuerySchema,
    success: { status: 200, description: "One page of entries.", schema: CreditLedgerPageSchema },
  }),
} as const;
