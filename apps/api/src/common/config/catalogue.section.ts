import { z } from "zod";
import { SHARED_VARIABLES, section } from "./variables.js";

/**
 * `seedCount`: catalogue images seeded on first start of an empty database (a few hundred when embedded).
 * `searchCacheSeconds`: how long a search answer is reused for the same search unchecked (0: never); past
 * it, it is checked in the background (kept while nothing that could change it has changed, up to a
 * minute, else renewed), and one unchecked for twice as long is not used.
 * `searchCacheMegabytes`: how much answer text (the answers' JSON) an API process keeps for reuse, the
 * searches least recently asked for going first; about 6,000 first pages of 20 images at the default.
 * `postingsCacheMegabytes`: how much of the search terms' postings an API process keeps between searches
 * (checked against each term's version at every search; 0: read every search's postings).
 */
export const CatalogueSection = section(
  {
    DATABASE_URL: SHARED_VARIABLES.DATABASE_URL,
    CATALOGUE_SEED_COUNT: z.coerce.number().int().min(0).optional(),
    SEARCH_CACHE_SECONDS: z.coerce.number().int().min(0).max(3600).default(10),
    SEARCH_CACHE_MB: z.coerce.number().int().min(1).max(65_536).default(64),
    SEARCH_POSTINGS_CACHE_MB: z.coerce.number().int().min(0).max(65_536).default(256),
  },
  (values) => ({
    seedCount: values.CATALOGUE_SEED_COUNT ?? (values.DATABASE_URL === undefined ? 300 : 0),
    searchCacheSeconds: values.SEARCH_CACHE_SECONDS,
    searchCacheMegabytes: values.SEARCH_CACHE_MB,
    postingsCacheMegabytes: values.SEARCH_POSTINGS_CACHE_MB,
  }),
);

/**
 * Signed download links of bought images. Without LINK_SECRET, a secret is generated once and kept in
 * DATA_DIR (enough for one host; set LINK_SECRET when API processes run on several hosts).
 */
export const LinksSection = section(
  {
    LINK_SECRET: z.string().min(32, "must be at least 32 characters").optional(),
    LINK_TTL_SECONDS: z.coerce
      .number()
      .int()
      .min(60)
      .max(7 * 24 * 3600)
      .default(3600),
  },
  (values) => ({ secret: values.LINK_SECRET, ttlSeconds: values.LINK_TTL_SECONDS }),
);
