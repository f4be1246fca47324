import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { stat } from "node:fs/promises";
import { createInterface } from "node:readline";
import { type CatalogueManifestLine, CatalogueManifestLineSchema, FORMATS } from "@imagehub/domain";
import { v7 as uuidv7 } from "uuid";
import { createRandomFromText } from "../../common/seeded-random.js";
import { dimensionsFor } from "../../engines/aspect-ratio.js";
import type { ImageStorage } from "../../storage/image-storage.js";
import type {
  CatalogueImageChanges,
  CataloguePicture,
  CatalogueRepository,
  ExternalImage,
} from "../catalogue.repository.js";
import { etagOf } from "../image-files.service.js";
import { BackgroundIndexFlush } from "../search/index-writer.js";
import { CATALOGUE_LONG_EDGE } from "../seed/catalogue-seeder.js";
import { ImageSourceError, type ImageSourcesRepository } from "./image-sources.repository.js";
import { inParallel } from "./in-parallel.js";
import { toStoredOriginal, UnusablePictureError } from "./original-image.js";

/** Lines per transaction: text-only lines are cheap, pictures hold their bytes in memory until written. */
const TEXT_BATCH = 2000;
const PICTURE_BATCH = 64;
/** Pictures read, converted and stored at once: sharp's work runs on its own threads, fetches wait on the network. */
const PICTURE_CONCURRENCY = 8;
/** Unreferenced files deleted per round. */
const SWEEP_BATCH = 1000;

export interface ImportOptions {
  manifestPath: string;
  /** False for a text-only load: `file` and `url` are left aside, new images are drawn from their titles. */
  withPictures: boolean;
  onProgress?: (progress: ImportProgress) => void;
  onSkipped?: (skipped: SkippedLine) => void;
  /** Called once every line is written, before the images not yet indexed are indexed for search. */
  onIndexing?: () => void;
}

export interface ImportProgress {
  lines: number;
  bytesRead: number;
  totalBytes: number;
}

export interface SkippedLine {
  line: number;
  reason: string;
}

export interface ImportSummary {
  lines: number;
  added: number;
  updated: number;
  unchanged: number;
  skipped: number;
  /** Files left unreferenced by an earlier import that stopped, deleted before this one began. */
  strayFilesRemoved: number;
}

interface ManifestEntry {
  line: number;
  image: CatalogueManifestLine;
}

/** Lines read for one transaction, and the lines of their stretch of the manifest that were skipped. */
interface Batch {
  entries: ManifestEntry[];
  skipped: SkippedLine[];
}

/** What one entry changes: its image's text, its picture, and the files this stores or leaves behind. */
interface EntryChange {
  entry: ManifestEntry;
  /** The image's id: its own, or a new one (time-ordered, so that ids follow the manifest's order). */
  id: string;
  existing: ExternalImage | undefined;
  picture: CataloguePicture | undefined;
  storedFile: { key: string; bytes: Buffer } | undefined;
  replacedKeys: string[];
}

/**
 * Loads a catalogue manifest (JSON Lines, see CatalogueManifestLineSchema) through the catalogue's write path,
 * idempotent by `externalId`: a line whose image is as it says changes nothing, a changed line updates its
 * image. Each batch of lines is one transaction; a picture's file is stored before it and recorded as
 * unreferenced until the transaction records its image, so that a crash at any point leaves every image whole
 * (or absent) and the next run deletes the files it left and goes on where it stopped.
 */
export class CatalogueImportService {
  constructor(
    private readonly catalogue: CatalogueRepository,
    private readonly sources: ImageSourcesRepository,
    private readonly storage: ImageStorage,
  ) {}

  async import(options: ImportOptions): Promise<ImportSummary> {
    const summary: ImportSummary = {
      lines: 0,
      added: 0,
      updated: 0,
      unchanged: 0,
      skipped: 0,
      strayFilesRemoved: await this.removeUnreferencedFiles(),
    };
    const firstLineOf = new Map<string, number>();
    const batchSize = options.withPictures ? PICTURE_BATCH : TEXT_BATCH;
    const totalBytes = (await stat(options.manifestPath)).size;
    const input = createReadStream(options.manifestPath);
    // New images are indexed for search many batches at a time; the last flush also takes those an import
    // that stopped midway left pending.
    const indexing = new BackgroundIndexFlush(() => this.catalogue.flushSearchIndex());
    const skip = (batch: Batch, line: number, reason: string) => {
      summary.skipped++;
      batch.skipped.push({ line, reason });
    };
    const write = async (full: Batch) => {
      const added = await this.importBatch(full.entries, options.withPictures, summary, (line, reason) =>
        skip(full, line, reason),
      );
      indexing.written(added);
      // Reported with their batch, in the manifest's order (a picture's reason comes after the line is parsed).
      for (const line of full.skipped.sort((a, b) => a.line - b.line)) options.onSkipped?.(line);
      options.onProgress?.({ lines: summary.lines, bytesRead: input.bytesRead, totalBytes });
    };
    // A batch is written while the next one is read and checked: the import's own work goes on beside the
    // database's. Batches are written one at a time, in the manifest's order.
    let writing: Promise<void> = Promise.resolve();
    let batch: Batch = { entries: [], skipped: [] };
    const flush = async () => {
      const full = batch;
      batch = { entries: [], skipped: [] };
      await writing;
      writing = write(full);
      // Its failure is taken where it is awaited: by the next batch, or at the end.
      writing.catch(() => undefined);
    };
    for await (const text of createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY })) {
      const line = ++summary.lines;
      if (text.trim() === "") continue;
      const parsed = parseLine(text);
      if (typeof parsed === "string") {
        skip(batch, line, parsed);
        continue;
      }
      const first = firstLineOf.get(parsed.externalId);
      if (first !== undefined) {
        skip(batch, line, `externalId ${JSON.stringify(parsed.externalId)} is already on line ${first}`);
        continue;
      }
      firstLineOf.set(parsed.externalId, line);
      batch.entries.push({ line, image: parsed });
      if (batch.entries.length >= batchSize) await flush();
    }
    await flush();
    await writing;
    options.onIndexing?.();
    await indexing.finish();
    return summary;
  }

  /** Deletes from storage the files that an import which stopped midway left unreferenced; answers how many. */
  async removeUnreferencedFiles(): Promise<number> {
    let removed = 0;
    for (;;) {
      const keys = await this.catalogue.unreferencedFiles(SWEEP_BATCH);
      if (keys.length === 0) return removed;
      await inParallel(keys, PICTURE_CONCURRENCY, (key) => this.storage.delete(key));
      await this.catalogue.forgetUnreferenced(keys);
      removed += keys.length;
    }
  }

  /** Writes a batch's changes; answers how many images it added (their search index deferred). */
  private async importBatch(
    batch: ManifestEntry[],
    withPictures: boolean,
    summary: ImportSummary,
    skip: (line: number, reason: string) => void,
  ): Promise<number> {
    if (batch.length === 0) return 0;
    const existing = new Map(
      (await this.catalogue.findByExternalIds(batch.map((entry) => entry.image.externalId))).map((image) => [
        image.externalId,
        image,
      ]),
    );
    const images = batch.map((entry) => {
      const image = existing.get(entry.image.externalId);
      return { entry, existing: image, id: image?.id ?? uuidv7() };
    });
    const changes = await inParallel(
      images,
      withPictures ? PICTURE_CONCURRENCY : batch.length,
      async (image) => {
        const { entry } = image;
        try {
          return await this.changeOf(image, withPictures);
        } catch (error) {
          if (!(error instanceof ImageSourceError || error instanceof UnusablePictureError)) throw error;
          skip(entry.line, error.message);
          return undefined;
        }
      },
    );
    const write: CatalogueImageChanges = {
      added: [],
      textChanged: [],
      pictureChanged: [],
      referencedKeys: [],
      unreferencedKeys: [],
    };
    for (const change of changes) {
      if (!change) continue;
      const { externalId, titles, tags, free, price } = change.entry.image;
      const text = { id: change.id, externalId, titles, tags, free, price };
      if (!change.existing) {
        write.added.push({ ...text, ...(change.picture as CataloguePicture) });
        summary.added++;
      } else {
        const isTextChanged = !hasSameText(change.existing, change.entry.image);
        if (isTextChanged) write.textChanged.push(text);
        if (change.picture) write.pictureChanged.push({ ...change.picture, id: change.id });
        if (isTextChanged || change.picture) summary.updated++;
        else summary.unchanged++;
      }
      if (change.storedFile) write.referencedKeys.push(change.storedFile.key);
      write.unreferencedKeys.push(...change.replacedKeys);
    }
    const stored = changes.flatMap((change) => (change?.storedFile ? [change.storedFile] : []));
    // Recorded first: a crash while the files are written, or before the images are, leaves them listed.
    if (stored.length > 0) {
      await this.catalogue.markUnreferenced(stored.map((file) => file.key));
      await inParallel(stored, PICTURE_CONCURRENCY, (file) =>
        this.storage.put(file.key, file.bytes, "image/jpeg"),
      );
    }
    await this.catalogue.saveCatalogueImages(write);
    if (write.unreferencedKeys.length > 0) await this.removeUnreferencedFiles();
    return write.added.length;
  }

  /**
   * The picture an entry asks for, when it differs from its image's (always for a new image): its source read,
   * converted and given a key of its own (never the replaced file's, which stays whole until the transaction
   * that replaces it commits). Without pictures, a new image is drawn from its title and an existing one's
   * picture is left as it is.
   */
  private async changeOf(
    { entry, existing, id }: Pick<EntryChange, "entry" | "existing" | "id">,
    withPictures: boolean,
  ): Promise<EntryChange> {
    const unchanged = { entry, existing, id, picture: undefined, storedFile: undefined, replacedKeys: [] };
    const { image } = entry;
    const fileBytes =
      withPictures && image.file !== undefined ? await this.sources.readFile(image.file) : undefined;
    const source = !withPictures
      ? existing?.externalSource
      : fileBytes
        ? `sha256:${createHash("sha256").update(fileBytes).digest("hex")}`
        : (image.url ?? null);
    if (existing && (!withPictures || existing.externalSource === source)) return unchanged;
    const replacedKeys = Object.values(existing?.renditions ?? {}).map((rendition) => rendition.key);
    const sourceBytes =
      fileBytes ?? (withPictures && image.url ? await this.sources.fetchUrl(image.url) : undefined);
    if (!sourceBytes) {
      return { ...unchanged, picture: placeholderPicture(image.externalId), replacedKeys };
    }
    const { jpeg, width, height } = await toStoredOriginal(sourceBytes);
    const digest = createHash("sha256").update(jpeg).digest("hex").slice(0, 16);
    const key = `images/${id}/original-${digest}.jpg`;
    const original = { key, etag: etagOf(jpeg) };
    return {
      ...unchanged,
      picture: { width, height, seed: 0, externalSource: source ?? null, renditions: { original } },
      storedFile: { key, bytes: jpeg },
      replacedKeys: replacedKeys.filter((replaced) => replaced !== key),
    };
  }
}

/** The line's image, or why it is refused. */
function parseLine(text: string): CatalogueManifestLine | string {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return `not JSON (${error instanceof Error ? error.message : String(error)})`;
  }
  const parsed = CatalogueManifestLineSchema.safeParse(json);
  if (parsed.success) return parsed.data;
  return parsed.error.issues
    .map((issue) => (issue.path.length > 0 ? `${issue.path.join(".")}: ${issue.message}` : issue.message))
    .join("; ");
}

function hasSameText(image: ExternalImage, line: CatalogueManifestLine): boolean {
  const sorted = (titles: Record<string, string>) => JSON.stringify(Object.entries(titles).sort());
  return (
    sorted(image.titles) === sorted(line.titles) &&
    JSON.stringify(image.tags) === JSON.stringify(line.tags) &&
    image.free === line.free &&
    image.price === line.price
  );
}

/** Drawn by the built-in engine from the title on first display, as seeded images are: shape and seed from the id. */
function placeholderPicture(externalId: string): CataloguePicture {
  const random = createRandomFromText(externalId);
  const format = FORMATS[Math.floor(random() * FORMATS.length)] as string;
  return {
    ...dimensionsFor(format, CATALOGUE_LONG_EDGE),
    seed: Math.floor(random() * 2 ** 31),
    externalSource: null,
    renditions: {},
  };
}
