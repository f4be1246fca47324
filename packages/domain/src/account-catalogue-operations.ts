import { CreditLedgerPageSchema, CreditLedgerQuerySchema } from "./credit-ledger.schema.js";
import { forTheSession } from "./for-the-session.js";
import {
  AccountImageParamsSchema,
  AccountImageSchema,
  AccountImagesRequestSchema,
  AccountImagesResponseSchema,
} from "./images.schema.js";
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
  getAccountImage: defineOperation({
    operationId: "getAccountImage",
    method: "GET",
    path: "/account/images/{imageId}",
    tag: "Account",
    summary: "One image, for its page",
    description:
      "A catalogue image or one of the account's generated images: titles, price, and the account's purchase with fresh links when it owns it.",
    auth: "session",
    params: AccountImageParamsSchema,
    success: { status: 200, description: "The image.", schema: AccountImageSchema },
    errors: { 404: "No such image, or another account's generated image." },
  }),
  accountImages: defineOperation({
    operationId: "accountImages",
    method: "POST",
    path: "/account/images/owned",
    tag: "Account",
    summary: "Prices and purchases of listed images",
    description:
      "For the images a page lists (search results, generations): each one's price, and the account's purchase with fresh links when it owns it. Reads only.",
    auth: "session",
    changesNothing: true,
    body: AccountImagesRequestSchema,
    success: {
      status: 200,
      description: "The images the account may see.",
      schema: AccountImagesResponseSchema,
    },
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
