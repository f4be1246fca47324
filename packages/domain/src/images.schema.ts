import { z } from "zod";
import {
  BodyPaginationSchema,
  DateTimeSchema,
  FilterDateTimeSchema,
  FilteredResultsSchema,
} from "./common.schema.js";

export const ImageSchema = z
  .object({
    id: z.string(),
    url: z.url().describe("Display link to the watermarked preview (at most 512 px)."),
    urlFull: z.url().describe("Display link to the full image."),
    validate: z.boolean(),
    free: z.boolean().describe("Free images cost no credit."),
    titles: z
      .record(z.string(), z.string())
      .describe('Title per language code, e.g. { "en": "…", "fr": "…" }.'),
  })
  .meta({ id: "Image", description: "A catalogue image or a generated image." });
export type Image = z.infer<typeof ImageSchema>;

export const PurchasedImageSchema = z
  .object({
    id: z.string(),
    url: z.url(),
    urlFull: z.url(),
    urlUpscale: z.url().optional(),
    urlUpscaleUHD: z.url(),
    downloadedAt: DateTimeSchema,
  })
  .meta({ id: "PurchasedImage", description: "An image the account has bought or downloaded." });
export type PurchasedImage = z.infer<typeof PurchasedImageSchema>;

export const IMAGE_SORTS = ["relevance", "newest", "oldest", "popular"] as const;

/** The longest search the API answers: a sentence or a pasted prompt. */
export const MAX_SEARCH_CHARACTERS = 512;
export const MAX_SEARCH_WORDS = 64;

export const SearchImagesRequestSchema = BodyPaginationSchema.extend({
  search: z
    .string()
    .trim()
    .max(MAX_SEARCH_CHARACTERS)
    .refine((keywords) => keywords.split(/[^\p{L}\p{N}]+/u).filter(Boolean).length <= MAX_SEARCH_WORDS, {
      message: `must have at most ${MAX_SEARCH_WORDS} words`,
    })
    .optional()
    .describe(
      `Keywords, matched in every title language and the tags: at most ${MAX_SEARCH_CHARACTERS} characters and ${MAX_SEARCH_WORDS} words (a pasted prompt will do). Sorted by relevance, images holding more of the words, rarer ones, in their titles, rank first.`,
    ),
  filterFree: z.boolean().optional().describe("Only free images."),
  sort: z
    .enum(IMAGE_SORTS)
    .optional()
    .describe("relevance (default when there are keywords), newest (default otherwise), oldest or popular."),
}).meta({ id: "SearchImagesRequest" });
export type SearchImagesRequest = z.infer<typeof SearchImagesRequestSchema>;

export const SearchImagesResponseSchema = z
  .object({ filteredResults: FilteredResultsSchema, images: z.array(ImageSchema) })
  .meta({ id: "SearchImagesResponse" });
export type SearchImagesResponse = z.infer<typeof SearchImagesResponseSchema>;

export const ImageIdRequestSchema = z
  .object({ id: z.string().min(1).max(100).describe("The image identifier.") })
  .meta({ id: "ImageIdRequest" });
export type ImageIdRequest = z.infer<typeof ImageIdRequestSchema>;

export const IMAGE_FORMATS = ["preview", "full"] as const;
export const DisplayImageParamsSchema = z.object({
  format: z.enum(IMAGE_FORMATS),
  imageId: z.string().min(1).max(100),
});
export type DisplayImageParams = z.infer<typeof DisplayImageParamsSchema>;

export const DownloadedImagesRequestSchema = BodyPaginationSchema.extend({
  afterCreatedAt: FilterDateTimeSchema.optional().describe(
    "Only images downloaded after this time (ISO 8601).",
  ),
  beforeCreatedAt: FilterDateTimeSchema.optional().describe(
    "Only images downloaded before this time (ISO 8601).",
  ),
})
  .refine(
    ({ afterCreatedAt, beforeCreatedAt }) =>
      !afterCreatedAt || !beforeCreatedAt || Date.parse(afterCreatedAt) < Date.parse(beforeCreatedAt),
    { path: ["afterCreatedAt"], message: "must be earlier than beforeCreatedAt" },
  )
  .meta({ id: "DownloadedImagesRequest" });
export type DownloadedImagesRequest = z.infer<typeof DownloadedImagesRequestSchema>;

export const DownloadedImagesResponseSchema = z
  .object({ filteredResults: FilteredResultsSchema, images: z.array(PurchasedImageSchema) })
  .meta({ id: "DownloadedImagesResponse" });
export type DownloadedImagesResponse = z.infer<typeof DownloadedImagesResponseSchema>;

/** The clean files a purchase gives access to through signed links. */
export const SIGNED_RENDITIONS = ["full", "upscale", "uhd"] as const;
export type SignedRendition = (typeof SIGNED_RENDITIONS)[number];

export const SignedImageFileParamsSchema = z.object({
  imageId: z.string().min(1).max(100),
  rendition: z.enum(SIGNED_RENDITIONS),
});

export const SignedImageFileQuerySchema = z.object({
  expires: z.coerce.number().int().describe("Unix seconds after which the link no longer works."),
  signature: z.string().min(1).max(200),
});

/** The web area's view of an image: what it costs this account, and its purchase when the account owns it. */
export const AccountImageSchema = ImageSchema.extend({
  price: z.number().int().min(0).describe("f_images credits a purchase takes; 0 when free."),
  purchase: PurchasedImageSchema.nullable().describe(
    "The account's purchase, with fresh links; null if not owned.",
  ),
}).meta({ id: "AccountImage" });
export type AccountImage = z.infer<typeof AccountImageSchema>;

export const MAX_IMAGES_LOOKED_UP = 100;

export const AccountImagesRequestSchema = z
  .strictObject({
    ids: z.array(z.string().min(1).max(100)).min(1).max(MAX_IMAGES_LOOKED_UP).describe("Image identifiers."),
  })
  .meta({ id: "AccountImagesRequest" });
export type AccountImagesRequest = z.infer<typeof AccountImagesRequestSchema>;

export const AccountImagesResponseSchema = z
  .object({
    images: z
      .array(AccountImageSchema)
      .describe(
        "Those of the ids the account may see (catalogue images, its own generated ones), in their order.",
      ),
  })
  .meta({ id: "AccountImagesResponse" });
export type AccountImagesResponse = z.infer<typeof AccountImagesResponseSchema>;

export const AccountImageParamsSchema = z.object({ imageId: z.string().min(1).max(100) });
