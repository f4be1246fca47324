import type { DisplayImageParams } from "@imagehub/domain";
import { Inject, Injectable } from "@nestjs/common";
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
      // The bytes go from the bucket; a cache keeps the redirect for half its life, so it is never stale.
      return {
        ...answer,
        status: 302,
        etag: located.etag,
        bytes: undefined,
        cacheControl: `${scope}, max-age=${Math.floor(this.redirectSeconds / 2)}`,
        location: await this.files.presignedUrl(located.key, this.redirectSeconds),
      } satisfies DisplayAnswer;
    }
    const file = await this.files.read(image, name);
    return { ...answer, status: 200, etag: file.etag, bytes: file.bytes } satisfies DisplayAnswer;
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
