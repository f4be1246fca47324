import { CreditLedgerPageSchema, CreditLedgerQuerySchema } from "./credit-ledger.schema.js";
import { defineOperation, type Operation } from "./operation.js";
import { operations } from "./operations.js";

/** A /v1 operation for the signed-in account of the web area: the same shapes, statuses and words. */
function forTheSession<const O extends Operation, const Id extends string>(
  operation: O,
  operationId: Id,
  path: string,
) {
  const shared: Omit<O, "operationId" | "path" | "tag" | "auth"> = operation;
  return defineOperation({ ...shared, operationId, path, tag: "Account", auth: "session" as const });
}

/** The web area's catalogue and credits pages: the /v1 operations, for the signed-in account. */
export const accountCatalogueOperations = {
  searchAccountImages: forTheSession(
    operations.searchImages,
    "searchAccountImages",
    "/account/images/search",
  ),
  buyAccountImage: forTheSession(operations.buyImage, "buyAccountImage", "/account/images/buy"),
  downloadedAccountImages: forTheSession(
    operations.downloadedImages,
    "downloadedAccountImages",
    "/account/images/downloaded",
  ),
  getAccountCredits: forTheSession(operations.getCredits, "getAccountCredits", "/account/credits"),
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
