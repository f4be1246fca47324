import { open, realpath } from "node:fs/promises";
import { isAbsolute, relative, resolve, sep } from "node:path";
import { Agent, request } from "undici";
import { assertAllowedUrl, ForbiddenAddressError, guardedLookup } from "../../common/outside-address.js";

/** Larger pictures than this are refused, from a folder or a URL alike: no stock original comes near it. */
export const MAX_SOURCE_BYTES = 50 * 1024 * 1024;

/** A URL must answer, and its body arrive, within this time. */
const FETCH_TIMEOUT_MS = 30_000;

/** Why a manifest line's picture could not be read: reported against its line, which is skipped. */
export class ImageSourceError extends Error {}

export interface ImageSourcesOptions {
  /** The folder `file` paths are read under; undefined when the import names none. */
  imagesDir: string | undefined;
  /** The webhook allowances: plain http, and addresses inside the network (tests on loopback). */
  allowHttp: boolean;
  allowPrivate: boolean;
}

/**
 * The bytes of the pictures a manifest names: files under the import's folder (never outside it, symbolic
 * links included), and URLs fetched through the webhook address guard (no address inside the network, at
 * the connection itself, so a name that resolves inside is refused too), an image type and at most
 * MAX_SOURCE_BYTES.
 */
export class ImageSourcesRepository {
  private readonly agent: Agent;
  private imagesRoot: Promise<string> | undefined;

  constructor(private readonly options: ImageSourcesOptions) {
    this.agent = new Agent({
      connect: options.allowPrivate ? {} : { lookup: guardedLookup },
      // A body that passes the limit without announcing it is cut there.
      maxResponseSize: MAX_SOURCE_BYTES,
      headersTimeout: FETCH_TIMEOUT_MS,
      bodyTimeout: FETCH_TIMEOUT_MS,
    });
  }

  async readFile(path: string): Promise<Buffer> {
    const root = await this.root();
    const wanted = resolve(root, path);
    if (isAbsolute(path) || !isInside(root, wanted)) {
      throw new ImageSourceError(`file ${JSON.stringify(path)} is outside the images folder`);
    }
    let real: string;
    try {
      real = await realpath(wanted);
    } catch {
      throw new ImageSourceError(`file ${JSON.stringify(path)} does not exist`);
    }
    if (!isInside(root, real)) {
      throw new ImageSourceError(`file ${JSON.stringify(path)} links outside the images folder`);
    }
    const handle = await open(real, "r");
    try {
      const stat = await handle.stat();
      if (!stat.isFile()) throw new ImageSourceError(`file ${JSON.stringify(path)} is not a file`);
      if (stat.size > MAX_SOURCE_BYTES) throw tooLarge(`file ${JSON.stringify(path)}`);
      return await handle.readFile();
    } finally {
      await handle.close();
    }
  }

  async fetchUrl(url: string): Promise<Buffer> {
    try {
      await assertAllowedUrl(new URL(url), this.options);
      const response = await request(url, { method: "GET", dispatcher: this.agent });
      const { statusCode, headers } = response;
      const type = String(headers["content-type"] ?? "");
      const refusal =
        statusCode !== 200
          ? `answered ${statusCode}${statusCode >= 300 && statusCode < 400 ? " (redirects are not followed)" : ""}`
          : !type.startsWith("image/")
            ? `answered ${type || "no content type"}, not an image`
            : Number(headers["content-length"] ?? 0) > MAX_SOURCE_BYTES
              ? `is larger than ${MAX_SOURCE_BYTES} bytes`
              : undefined;
      if (refusal) {
        // Read to a small limit, past which (or past an announced length above it) the connection is closed.
        await response.body.dump();
        throw new ImageSourceError(`${url} ${refusal}`);
      }
      return Buffer.from(await response.body.arrayBuffer());
    } catch (error) {
      throw describe(url, error);
    }
  }

  async close(): Promise<void> {
    await this.agent.close();
  }

  private root(): Promise<string> {
    const { imagesDir } = this.options;
    if (!imagesDir) return Promise.reject(new ImageSourceError("file given, but no --images folder"));
    this.imagesRoot ??= realpath(imagesDir);
    return this.imagesRoot;
  }
}

function isInside(root: string, path: string): boolean {
  const inside = relative(root, path);
  return inside !== "" && !inside.startsWith(`..${sep}`) && inside !== ".." && !isAbsolute(inside);
}

function tooLarge(what: string): ImageSourceError {
  return new ImageSourceError(`${what} is larger than ${MAX_SOURCE_BYTES} bytes`);
}

function describe(url: string, error: unknown): ImageSourceError {
  if (error instanceof ImageSourceError) return error;
  const { code, message, cause } = error as Error & { code?: string; cause?: unknown };
  const forbidden = [error, cause].find((reason) => reason instanceof ForbiddenAddressError);
  if (forbidden) return new ImageSourceError(`${url} refused: ${forbidden.message}`);
  if (code === "UND_ERR_RES_EXCEEDED_MAX_SIZE") return tooLarge(url);
  return new ImageSourceError(`${url} could not be fetched: ${code ?? message}`);
}
