import { z } from "zod";

/**
 * One line of a catalogue manifest (JSON Lines): what `catalogue import` loads and `catalogue export` writes.
 * `externalId` is the operator's own id for the image: loading a line again updates the image it names.
 */
export const CatalogueManifestLineSchema = z
  .strictObject({
    externalId: z.string().trim().min(1).max(200),
    titles: z
      .record(
        z.string().regex(/^[a-z]{2,3}(-[A-Za-z0-9]{2,8})?$/, "a language code"),
        z.string().trim().min(1).max(500),
      )
      .refine((titles) => Object.keys(titles).length > 0, "at least one title"),
    tags: z.array(z.string().trim().min(1).max(100)).max(200).default([]),
    free: z.boolean().default(false),
    price: z.int().min(0).max(1_000_000).default(1),
    /** The picture: a path under the import's images folder, or an http(s) URL; neither draws a placeholder. */
    file: z.string().min(1).max(1000).optional(),
    url: z
      .url({ protocol: /^https?$/ })
      .max(2000)
      .optional(),
  })
  .refine((line) => line.file === undefined || line.url === undefined, "give file or url, not both");
export type CatalogueManifestLine = z.infer<typeof CatalogueManifestLineSchema>;
