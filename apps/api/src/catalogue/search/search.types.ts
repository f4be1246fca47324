import type { IMAGE_SORTS } from "@imagehub/domain";

export type SearchSort = (typeof IMAGE_SORTS)[number];

export interface SearchCriteria {
  keywords: string | undefined;
  freeOnly: boolean;
  sort: SearchSort;
  limit: number;
  offset: number;
}

export interface ImageSummary {
  id: string;
  titles: Record<string, string>;
  free: boolean;
  validate: boolean;
}
