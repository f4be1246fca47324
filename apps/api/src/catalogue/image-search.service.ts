import type { Image, SearchImagesRequest, SearchImagesResponse } from "@imagehub/domain";
import { Inject, Injectable } from "@nestjs/common";
import { APP_CONFIG, type AppConfig } from "../common/config.js";
import { CatalogueRepository, type ImageSummary } from "./catalogue.repository.js";
import { displayUrl } from "./display-url.js";

@Injectable()
export class ImageSearchService {
  constructor(
    private readonly catalogue: CatalogueRepository,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async search(request: SearchImagesRequest): Promise<SearchImagesResponse> {
    const keywords = request.search?.trim() || undefined;
    const sort = request.sort ?? (keywords ? "relevance" : "newest");
    const { total, images } = await this.catalogue.search({
      keywords,
      freeOnly: request.filterFree ?? false,
      // Without keywords there is nothing to rank by: relevance means newest.
      sort: sort === "relevance" && !keywords ? "newest" : sort,
      limit: request.limit,
      offset: request.offset,
    });
    return { filteredResults: total, images: images.map((image) => this.toImage(image)) };
  }

  private toImage(image: ImageSummary): Image {
    return {
      id: image.id,
      url: displayUrl(this.config.http.publicBaseUrl, "preview", image.id),
      urlFull: displayUrl(this.config.http.publicBaseUrl, "full", image.id),
      validate: image.validate,
      free: image.free,
      titles: image.titles,
    };
  }
}
