import type {
  AccountImage,
  AccountImagesResponse,
  DownloadedImagesRequest,
  DownloadedImagesResponse,
  PurchasedImage,
  SignedRendition,
} from "@imagehub/domain";
import { Inject, Injectable } from "@nestjs/common";
import type { Caller } from "../accounts/api-key-auth.service.js";
import { CatalogueRepository, type ImageRecord } from "../catalogue/catalogue.repository.js";
import { displayUrl, toImage } from "../catalogue/display-url.js";
import { type ImageFile, type ImageFileName, ImageFilesService } from "../catalogue/image-files.service.js";
import { APP_CONFIG, type AppConfig } from "../common/config.js";
import { Forbidden, NotEnoughCredits, NotFound } from "../common/domain-errors.js";
import { MetricsService } from "../metrics/metrics.service.js";
import { LinkSigner } from "./link-signer.js";
import { type ImageOffer, type PurchaseRecord, PurchasesRepository } from "./purchases.repository.js";

/** The file each signed rendition serves: all clean, none watermarked. */
const SIGNED_FILES: Record<SignedRendition, ImageFileName> = {
  full: "original",
  upscale: "upscale",
  uhd: "uhd",
};

export type SignedFileAnswer = { redirectTo: string } | { file: ImageFile; downloadName: string };

@Injectable()
export class PurchasesService {
  constructor(
    private readonly purchases: PurchasesRepository,
    private readonly catalogue: CatalogueRepository,
    private readonly files: ImageFilesService,
    private readonly links: LinkSigner,
    private readonly metrics: MetricsService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async buy(caller: Caller, imageId: string): Promise<PurchasedImage> {
    return this.toPurchasedImage(await this.obtain(caller, imageId));
  }

  async download(caller: Caller, imageId: string): Promise<{ file: ImageFile; downloadName: string }> {
    await this.obtain(caller, imageId);
    const image = (await this.catalogue.findImage(imageId)) as ImageRecord;
    return { file: await this.files.read(image, "original"), downloadName: `${imageId}.jpg` };
  }

  /** The images of `imageIds` the account may see, in the order asked, with price and purchase. */
  async accountImages(caller: Caller, imageIds: readonly string[]): Promise<AccountImagesResponse> {
    const offers = await this.purchases.offers(caller.account.id, imageIds);
    const byId = new Map(offers.map((offer) => [offer.image.id, offer]));
    return {
      images: imageIds.flatMap((id) => {
        const offer = byId.get(id);
        return offer ? [this.toAccountImage(offer)] : [];
      }),
    };
  }

  async accountImage(caller: Caller, imageId: string): Promise<AccountImage> {
    const [offer] = await this.purchases.offers(caller.account.id, [imageId]);
    if (!offer) throw new NotFound(`no image with id ${imageId}`);
    return this.toAccountImage(offer);
  }

  async downloaded(caller: Caller, request: DownloadedImagesRequest): Promise<DownloadedImagesResponse> {
    const { total, purchases } = await this.purchases.listObtained(caller.account.id, {
      after: request.afterCreatedAt ? new Date(request.afterCreatedAt) : undefined,
      before: request.beforeCreatedAt ? new Date(request.beforeCreatedAt) : undefined,
      limit: request.limit,
      offset: request.offset,
    });
    return { filteredResults: total, images: purchases.map((purchase) => this.toPurchasedImage(purchase)) };
  }

  /** The file behind a signed link: a redirect to a presigned URL where storage has them, else the bytes. */
  async signedFile(
    imageId: string,
    rendition: SignedRendition,
    expires: number,
    signature: string,
  ): Promise<SignedFileAnswer> {
    if (!this.links.isValid(imageId, rendition, expires, signature)) {
      throw new Forbidden("this link is not valid or has expired; buy the image again for fresh links");
    }
    const image = await this.catalogue.findImage(imageId);
    if (!image) throw new NotFound(`no image with id ${imageId}`);
    const name = SIGNED_FILES[rendition];
    const downloadName = `${imageId}-${rendition}.jpg`;
    const { key } = await this.files.locate(image, name);
    const presigned = await this.files.presignedUrl(key, this.config.links.ttlSeconds, downloadName);
    if (presigned) return { redirectTo: presigned };
    return { file: await this.files.read(image, name), downloadName };
  }

  private async obtain(caller: Caller, imageId: string): Promise<PurchaseRecord> {
    const result = await this.purchases.obtain(caller.account.id, imageId, caller.actor);
    if (result.outcome === "no-such-image") throw new NotFound(`no image with id ${imageId}`);
    if (result.outcome === "not-enough-credits") {
      throw new NotEnoughCredits(
        "f_images",
        result.price,
        result.balance,
        `not enough credits: this image costs ${result.price} f_images credit${result.price === 1 ? "" : "s"} and ${result.balance} are left`,
      );
    }
    if (result.isFirst) this.metrics.spent("f_images", result.purchase.price);
    return result.purchase;
  }

  private toAccountImage({ image, price, purchase }: ImageOffer): AccountImage {
    return {
      ...toImage(this.config.http.publicBaseUrl, image),
      price,
      purchase: purchase && this.toPurchasedImage(purchase),
    };
  }

  private toPurchasedImage(purchase: PurchaseRecord): PurchasedImage {
    const id = purchase.imageId;
    return {
      id,
      url: displayUrl(this.config.http.publicBaseUrl, "preview", id),
      urlFull: this.links.url(id, "full"),
      urlUpscale: this.links.url(id, "upscale"),
      urlUpscaleUHD: this.links.url(id, "uhd"),
      downloadedAt: purchase.downloadedAt.toISOString(),
    };
  }
}
