import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import type { SignedRendition } from "@imagehub/domain";
import type { AppConfig } from "../common/config.js";

/**
 * Signs and checks the expiring links of bought images: an HMAC-SHA256 of image, rendition and expiry
 * with a server secret, so that links work without a key and cannot be forged or extended.
 */
export class LinkSigner {
  constructor(
    private readonly secret: Buffer,
    private readonly publicBaseUrl: string,
    private readonly ttlSeconds: number,
  ) {}

  /** LINK_SECRET, or one generated on first start and kept in DATA_DIR. */
  static async fromConfig(config: AppConfig): Promise<LinkSigner> {
    const secret = config.links.secret ?? (await storedSecret(join(config.dataDir, "link-secret")));
    return new LinkSigner(Buffer.from(secret), config.http.publicBaseUrl, config.links.ttlSeconds);
  }

  url(imageId: string, rendition: SignedRendition, now = Date.now()): string {
    const expires = Math.floor(now / 1000) + this.ttlSeconds;
    const signature = this.sign(imageId, rendition, expires);
    return `${this.publicBaseUrl}/v1/images/files/${imageId}/${rendition}.jpg?expires=${expires}&signature=${signature}`;
  }

  isValid(
    imageId: string,
    rendition: SignedRendition,
    expires: number,
    signature: string,
    now = Date.now(),
  ): boolean {
    if (expires * 1000 < now) return false;
    const expected = Buffer.from(this.sign(imageId, rendition, expires));
    const given = Buffer.from(signature);
    return given.length === expected.length && timingSafeEqual(given, expected);
  }

  private sign(imageId: string, rendition: string, expires: number): string {
    return createHmac("sha256", this.secret).update(`${imageId}/${rendition}/${expires}`).digest("base64url");
  }
}

async function storedSecret(file: string): Promise<string> {
  try {
    return (await readFile(file, "utf8")).trim();
  } catch {
    const secret = randomBytes(32).toString("base64url");
    await mkdir(dirname(file), { recursive: true });
    // "wx": when two processes start at once, the first one's secret wins and the other reads it.
    await writeFile(file, secret, { mode: 0o600, flag: "wx" }).catch(() => undefined);
    return (await readFile(file, "utf8")).trim();
  }
}
