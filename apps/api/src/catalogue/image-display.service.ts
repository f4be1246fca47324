import type { DisplayImageParams } from "@imagehub/domain";
import { Inject, Injectable } from "@nestjs/common";
import { LRUCache } from "lru-cache";
import { APP_CONFIG, type AppConfig } from "../common/config.js";
import { NotFound } from "../common/domain-errors.js";
import { CatalogueRepository } from "./catalogue.repository.js";
import { type ImageFileName, ImageFilesService } from "./image-files.service.js";

export interface DisplayAnswer {
  status: 200 | 302 | 304;
  etag: string;
  cacheControl: string;
  /** `full` depends on the api-key header; shared caches must keep one copy per key. */
  vary: string | undefined;
  bytes: Buffer | undefined;
  /** 302: the file in the bucket, signed for S3_DISPLAY_REDIRECT_SECONDS. */
  location?: string;
}

/** Files never change once produced: caches may keep them for a year. */
const IMMUTABLE = "max-age=31536000, immutable";

@Injectable()
export class ImageDisplayService {
  private readonly redirectSeconds: number;
  /** S3_DISPLAY_REDIRECT_SECONDS: the URLs signed lately, by storage key, with when they were signed. */
  private readonly signedUrls = new LRUCache<string, { url: string; at: number }>({ max: 10_000 });

  constructor(
    private readonly catalogue: CatalogueRepository,
    private readonly files: ImageFilesService,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.redirectSeconds = config.storage.driver === "s3" ? config.storage.displayRedirectSeconds : 0;
  }

  async display(
    params: DisplayImageParams,
    accountId: string | undefined,
    ifNoneMatch: string | undefined,
  ): Promise<DisplayAnswer> {
    const image = await this.catalogue.findImage(params.imageId);
    if (!image) throw new NotFound(`no image with id ${params.imageId}`);
    const isOwnedByCaller =
      params.format === "full" &&
      accountId !== undefined &&
      (await this.catalogue.isObtainedBy(image.id, accountId));
    const name: ImageFileName =
      params.format === "preview"
        ? "preview"
        : image.free || isOwnedByCaller
          ? "original"
          : "full-watermarked";
    const scope = isOwnedByCaller && !image.free ? "private" : "public";
    const answer = {
      cacheControl: `${scope}, ${IMMUTABLE}`,
      vary: params.format === "full" ? "api-key" : undefined,
    };
    const located = await this.files.locate(image, name);
    if (matchesEtag(ifNoneMatch, located.etag)) {
      return { ...answer, status: 304, etag: located.etag, bytes: undefined } satisfies DisplayAnswer;
    }
    if (this.redirectSeconds > 0) {
      const { url, reusableSeconds } = await this.signed(located.key);
      // The bytes go from the bucket. A cache keeps the redirect no longer than the URL is reused, so that
      // what it holds always has half its life ahead.
      return {
        ...answer,
        status: 302,
        etag: located.etag,
        bytes: undefined,
        cacheControl: `${scope}, max-age=${reusableSeconds}`,
        location: url,
      } satisfies DisplayAnswer;
    }
    const file = await this.files.read(image, name);
    return { ...answer, status: 200, etag: file.etag, bytes: file.bytes } satisfies DisplayAnswer;
  }

  /** A rendition's URL signed for the redirect's life, reused for half of it: signing costs more than the rest. */
  private async signed(key: string): Promise<{ url: string; reusableSeconds: number }> {
    const now = Date.now();
    const reuseMs = (this.redirectSeconds * 1000) / 2;
    let signed = this.signedUrls.get(key);
    if (!signed || now - signed.at >= reuseMs) {
      const url = await this.files.presignedUrl(key, this.redirectSeconds);
      if (!url) throw new Error(`the storage signed no URL for ${key}`);
      signed = { url, at: now };
      this.signedUrls.set(key, signed);
    }
    return { url: signed.url, reusableSeconds: Math.floor((signed.at + reuseMs - now) / 1000) };
  }
}

/** If-None-Match uses the weak comparison: W/ prefixes are ignored; "*" matches anything. */
function matchesEtag(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  return ifNoneMatch
    .split(",")
    .map((tag) => tag.trim().replace(/^W\//, ""))
    .some((tag) => tag === "*" || tag === etag);
}
