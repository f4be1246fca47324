import { z } from "zod";
import { CreditBucketTypeSchema } from "./accounts.schema.js";
import { DateTimeSchema, DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from "./common.schema.js";

/** Why a bucket's balance changed, as the ledger records it. */
export const CREDIT_ENTRY_REASONS = [
  "grant",
  "purchase",
  "generation",
  "refund",
  "renewal",
  "adjustment",
] as const;

export const CreditLedgerEntrySchema = z
  .object({
    id: z.string(),
    createdAt: DateTimeSchema,
    type: CreditBucketTypeSchema,
    change: z.number().int().describe("Positive for grants and refunds, negative for debits."),
    reason: z.enum(CREDIT_ENTRY_REASONS),
    reference: z
      .string()
      .nullable()
      .describe("What the entry is about: an image id, a generation id, a note."),
  })
  .meta({ id: "CreditLedgerEntry", description: "One change of a credit bucket." });
export type CreditLedgerEntry = z.infer<typeof CreditLedgerEntrySchema>;

export const CreditLedgerQuerySchema = z.object({
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(MAX_PAGE_SIZE)
    .default(DEFAULT_PAGE_SIZE)
    .describe(`Page size, 1 to ${MAX_PAGE_SIZE}; ${DEFAULT_PAGE_SIZE} when omitted.`),
  before: z
    .string()
    .regex(/^\d{1,18}$/, "must be the nextCursor of a previous page")
    .optional()
    .describe("The nextCursor of the previous page; the newest entries when omitted."),
});
export type CreditLedgerQuery = z.infer<typeof CreditLedgerQuerySchema>;

export const CreditLedgerPageSchema = z
  .object({
    entries: z.array(CreditLedgerEntrySchema).describe("Newest first."),
    nextCursor: z
      .string()
      .nullable()
      .describe("Pass it as `before` for the next page; null on the last one."),
  })
  .meta({ id: "CreditLedgerPage" });
export type CreditLedgerPage = z.infer<typeof CreditLedgerPageSchema>;
