import {
  type BodyInputOf,
  DEFAULT_PAGE_SIZE,
  type ImageGeneration,
  type ImageGenerationList,
  operations,
  type QueryInputOf,
} from "@imagehub/domain";
import { ImagehubError } from "./errors.js";
import { sleep } from "./sleep.js";
import { type CallInput, type CallOptions, type ClientOptions, Transport } from "./transport.js";

type Ops = typeof operations;
type SearchInput = Omit<BodyInputOf<Ops["searchImages"]>, "offset">;
type DownloadedInput = Omit<BodyInputOf<Ops["downloadedImages"]>, "offset">;
type FindGenerationsInput = Omit<QueryInputOf<Ops["findImageGenerations"]>, "offset">;

/** A generation ended in Error: `generation.failureReason` says why. */
export class GenerationFailedError extends ImagehubError {
  override name = "GenerationFailedError";

  constructor(readonly generation: ImageGeneration) {
    super(`generation ${generation.id} failed: ${generation.failureReason ?? "no reason given"}`);
  }
}

export interface WaitOptions extends CallOptions {
  /** Called whenever the generation's status or number of images changes. */
  onProgress?: (generation: ImageGeneration) => void;
  /** Time between two reads, in ms; default 1,000. */
  intervalMs?: number;
}

const GENERATION_DONE = 3;
const GENERATION_ERROR = 4;

/**
 * The imagehub `/v1` interface, one method per operation, typed by `@imagehub/domain`. Works against a
 * self-hosted imagehub or the live service it mirrors (`baseUrl`).
 */
export class ImagehubClient {
  private readonly transport: Transport;

  constructor(options: ClientOptions = {}) {
    this.transport = new Transport(options);
  }

  readonly keys = {
    check: (options?: CallOptions) => this.transport.json(operations.checkApiKey, {}, options),
  };

  readonly credits = {
    get: (options?: CallOptions) => this.transport.json(operations.getCredits, {}, options),
  };

  readonly images = {
    search: (body: BodyInputOf<Ops["searchImages"]> = {}, options?: CallOptions) =>
      this.transport.json(operations.searchImages, { body }, options),
    /** Every matching image, page after page (`limit` is the page size). */
    searchAll: (body: SearchInput = {}, options?: CallOptions) =>
      this.pages(
        body.limit as number | undefined,
        (offset) => this.transport.json(operations.searchImages, { body: { ...body, offset } }, options),
        (page) => page.images,
      ),
    buy: (imageId: string, options?: CallOptions) =>
      this.transport.json(operations.buyImage, { body: { id: imageId } }, options),
    /** The clean JPEG (debited once per account): a fetch Response whose body streams the bytes. */
    download: (imageId: string, options?: CallOptions) =>
      this.transport.call(operations.downloadImage, { body: { id: imageId } }, options),
    /** A preview (512 px, watermarked) or the full image (clean once bought or when free). */
    display: (format: "preview" | "full", imageId: string, options?: CallOptions) =>
      this.transport.call(operations.displayImage, { params: { format, imageId } }, options),
    /**
     * The clean file behind a link answered by `buy` (`urlFull`, `urlUpscale`, `urlUpscaleUHD`), fetched
     * from this client's base URL: a fetch Response whose body streams the bytes.
     */
    file: (link: string, options?: CallOptions) => {
      const url = new URL(link);
      const [, imageId, rendition] = /\/v1\/images\/files\/([^/]+)\/([^/]+)\.jpg$/.exec(url.pathname) ?? [];
      if (!imageId || !rendition) throw new TypeError(`${link} is not a link answered by buy`);
      return this.transport.call(
        operations.signedImageFile,
        {
          params: { imageId: decodeURIComponent(imageId), rendition: rendition as "full" },
          query: Object.fromEntries(url.searchParams),
        },
        options,
      );
    },
    downloaded: (body: BodyInputOf<Ops["downloadedImages"]> = {}, options?: CallOptions) =>
      this.transport.json(operations.downloadedImages, { body }, options),
    downloadedAll: (body: DownloadedInput = {}, options?: CallOptions) =>
      this.pages(
        body.limit as number | undefined,
        (offset) => this.transport.json(operations.downloadedImages, { body: { ...body, offset } }, options),
        (page) => page.images,
      ),
  };

  readonly generations = {
    create: (body: BodyInputOf<Ops["createImageGeneration"]>, options?: CallOptions) =>
      this.transport.json(operations.createImageGeneration, { body }, options),
    update: (id: string, body: BodyInputOf<Ops["updateImageGeneration"]>, options?: CallOptions) =>
      this.transport.json(operations.updateImageGeneration, { params: { printId: id }, body }, options),
    retry: (id: string, options?: CallOptions) =>
      this.transport.json(operations.retryImageGeneration, { params: { printId: id } }, options),
    get: (id: string, options?: CallOptions) =>
      this.transport.json(operations.getImageGeneration, { params: { imageGenerationId: id } }, options),
    find: (query: QueryInputOf<Ops["findImageGenerations"]> = {}, options?: CallOptions) =>
      this.transport.json(
        operations.findImageGenerations,
        // Query values are numbers and strings, as the URL carries them.
        { query: query as CallInput["query"] },
        options,
      ),
    findAll: (query: FindGenerationsInput = {}, options?: CallOptions) =>
      this.pages(
        query.limit as number | undefined,
        (offset) => this.generations.find({ ...query, offset }, options),
        (page: ImageGenerationList) => page.prints,
      ),
    /** Answers the ids deleted and those that named no generation of the account, as the API does. */
    delete: (ids: string[], options?: CallOptions) =>
      this.transport.json(operations.deleteImageGenerations, { body: { printIds: ids } }, options),
  };

  readonly webhooks = {
    subscribe: (body: BodyInputOf<Ops["subscribeWebhook"]>, options?: CallOptions) =>
      this.transport.json(operations.subscribeWebhook, { body }, options),
    get: (id: string, options?: CallOptions) =>
      this.transport.json(operations.getWebhook, { params: { apiKeyWebhookId: id } }, options),
    list: (options?: CallOptions) => this.transport.json(operations.listWebhooks, {}, options),
    unsubscribe: async (id: string, options?: CallOptions) => {
      await this.transport.call(operations.unsubscribeWebhook, { params: { apiWebhookId: id } }, options);
    },
    test: (id: string, options?: CallOptions) =>
      this.transport.json(operations.testWebhook, { params: { apiKeyWebhookId: id } }, options),
    attempts: (id: string, options?: CallOptions) =>
      this.transport.json(operations.listWebhookAttempts, { params: { apiKeyWebhookId: id } }, options),
    /** `replay: true` also sends again what was not delivered since its deliveries began failing. */
    enable: (id: string, body: BodyInputOf<Ops["enableWebhook"]> = {}, options?: CallOptions) =>
      this.transport.json(operations.enableWebhook, { params: { apiKeyWebhookId: id }, body }, options),
  };

  /**
   * Reads the generation until it is Done (answers it) or in Error (rejects with GenerationFailedError),
   * reporting each change of status or number of images to `onProgress`.
   */
  async waitForGeneration(id: string, { onProgress, intervalMs = 1_000, signal }: WaitOptions = {}) {
    let last: string | undefined;
    for (;;) {
      const generation = await this.generations.get(id, { ...(signal && { signal }) });
      const state = `${generation.status}/${generation.images.length}`;
      if (state !== last) {
        last = state;
        onProgress?.(generation);
      }
      if (generation.status === GENERATION_DONE) return generation;
      if (generation.status === GENERATION_ERROR) throw new GenerationFailedError(generation);
      await sleep(intervalMs, signal);
    }
  }

  /** Pages of `limit` fetched one after the other until a short one; every item, in order. */
  private async *pages<Page, Item>(
    limit: number | undefined,
    fetchPage: (offset: number) => Promise<Page>,
    itemsOf: (page: Page) => Item[],
  ): AsyncGenerator<Item> {
    const pageSize = limit ?? DEFAULT_PAGE_SIZE;
    for (let offset = 0; ; offset += pageSize) {
      const items = itemsOf(await fetchPage(offset));
      yield* items;
      if (items.length < pageSize) return;
    }
  }
}
