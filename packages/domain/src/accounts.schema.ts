import { z } from "zod";

export const PLANS = ["standard", "dedicated"] as const;
export const PlanSchema = z.enum(PLANS);
export type Plan = z.infer<typeof PlanSchema>;

export const ApiKeyCheckSchema = z
  .object({
    email: z.email(),
    name: z.string().optional(),
    apiKeyId: z.string().describe("Identifier of the key that made the request (never the key itself)."),
    apiKeyPrefix: z.string().describe("The first characters of the key, to recognise it."),
  })
  .meta({ id: "ApiKeyCheck", description: "The account that owns the API key sent in the request." });
export type ApiKeyCheck = z.infer<typeof ApiKeyCheckSchema>;

/** Bucket types as the live service names them, plus the dedicated plan's fast-generation quota. */
export const CREDIT_BUCKET_TYPES = [
  "global",
  "f_images",
  "f_images_print",
  "f_images_print_fast",
  "f_images_packImage",
  "f_images_upscaleHD",
  "f_images_upscaleUHD",
  "f_websites",
  "f_queues",
] as const;
export const CreditBucketTypeSchema = z.enum(CREDIT_BUCKET_TYPES);
export type CreditBucketType = z.infer<typeof CreditBucketTypeSchema>;

export const CreditSchema = z
  .object({
    type: CreditBucketTypeSchema.describe(
      "f_images pays for purchases and downloads, f_images_print for generations, f_images_print_fast is the fast-generation quota of dedicated accounts.",
    ),
    credit: z.number().int().describe("What is left."),
    creditTotal: z.number().int().describe("What each period restores the bucket to."),
    unlimited: z.boolean().describe("When true the bucket is never debited."),
  })
  .meta({ id: "Credit" });
export type Credit = z.infer<typeof CreditSchema>;

export const CreditsSchema = z.object({ credits: z.array(CreditSchema) }).meta({ id: "Credits" });
export type Credits = z.infer<typeof CreditsSchema>;
