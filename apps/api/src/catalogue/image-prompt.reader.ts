import { STATUS_CODES } from "node:http";
import { IMAGE_FORMATS } from "@imagehub/domain";
import { Inject, Injectable, type OnModuleDestroy } from "@nestjs/common";
import sharp from "sharp";
import { Agent, request } from "undici";
import { APP_CONFIG, type AppConfig } from "../common/config.js";
import { DomainError } from "../common/domain-errors.js";
import { ForbiddenAddressError, guardedLookup, resolveAllowed } from "../common/outside-address.js";
import {
  IMAGE_PROMPT_TYPES,
  ImageEngineError,
  type ImagePrompt,
  type ImagePromptType,
} from "../engines/image-engine.js";
import { ImageDisplayService } from "./image-display.service.js";

const SHARP_FORMATS: Record<string, ImagePromptType> = {
  png: "image/png",
  jpeg: "image/jpeg",
  webp: "image/webp",
};

/**
 * The picture of an image prompt (`fromImageUrl`), for the engines that draw from one: an image of this
 * server (its own display URL) is read from storage, with the display's rules on who sees the clean
 * original; any other is fetched through the outside-address guard (no address inside the network, no
 * redirect), no larger than IMAGE_PROMPT_MAX_BYTES, and must be a PNG, JPEG or WebP picture. Every refusal
 * is an ImageEngineError: the generation's failure reason.
 */
@Injectable()
export class ImagePromptReader implements OnModuleDestroy {
  private readonly agent: Agent;
  private readonly ownImage: RegExp;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly display: ImageDisplayService,
  ) {
    const { allowPrivate, timeoutMs } = config.generations.imagePrompts;
    this.agent = new Agent({
      // Checked as each connection is made, so that a name resolving inside the network is refused too.
      connect: allowPrivate ? { timeout: timeoutMs } : { timeout: timeoutMs, lookup: guardedLookup },
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
    });
    const base = config.http.publicBaseUrl.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    this.ownImage = new RegExp(`^${base}/v1/images/(${IMAGE_FORMATS.join("|")})/([^/?#]+)\\.jpg$`);
  }

  async read(url: string, accountId: string): Promise<ImagePrompt> {
    const own = this.ownImage.exec(url);
    const bytes = own
      ? await this.readOwn(own[1] as (typeof IMAGE_FORMATS)[number], own[2] as string, accountId)
      : await this.fetch(new URL(url));
    const {
      format,
      width = 0,
      height = 0,
    } = await sharp(bytes)
      .metadata()
      .catch(() => ({ format: undefined, width: 0, height: 0 }));
    const mimeType = format === undefined ? undefined : SHARP_FORMATS[format];
    if (!mimeType) throw refused(`${url} is not a PNG, JPEG or WebP picture`);
    return { bytes, mimeType, width, height };
  }

  async onModuleDestroy(): Promise<void> {
    await this.agent.close();
  }

  private async readOwn(
    format: (typeof IMAGE_FORMATS)[number],
    imageId: string,
    accountId: string,
  ): Promise<Buffer> {
    try {
      const answer = await this.display.display({ format, imageId }, accountId, undefined);
      if (!answer.bytes) throw refused(`image ${imageId} could not be read`);
      return answer.bytes;
    } catch (error) {
      if (error instanceof DomainError) throw refused(`image ${imageId}: ${error.message}`);
      throw error;
    }
  }

  private async fetch(url: URL): Promise<Buffer> {
    const { allowPrivate, maxBytes, timeoutMs } = this.config.generations.imagePrompts;
    try {
      // Sockets look up names only: an address written in the URL is checked here.
      if (!allowPrivate) await resolveAllowed(url.hostname);
      const response = await request(url, {
        method: "GET",
        dispatcher: this.agent,
        headers: { accept: IMAGE_PROMPT_TYPES.join(", "), "user-agent": "imagehub/1" },
        signal: AbortSignal.timeout(timeoutMs),
      });
      if (response.statusCode !== 200) {
        await response.body.dump();
        const status = `HTTP ${response.statusCode} ${STATUS_CODES[response.statusCode] ?? ""}`.trim();
        throw refused(
          response.statusCode >= 300 && response.statusCode < 400
            ? `${url} answered ${status}: redirects are not followed`
            : `${url} answered ${status}`,
        );
      }
      const type = String(response.headers["content-type"] ?? "")
        .split(";")[0]
        ?.trim();
      if (!IMAGE_PROMPT_TYPES.includes(type as ImagePromptType)) {
        await response.body.dump();
        throw refused(`${url} is ${type || "of no type"}, not a PNG, JPEG or WebP picture`);
      }
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of response.body) {
        size += (chunk as Buffer).length;
        if (size > maxBytes) {
          response.body.destroy();
          throw refused(`${url} is larger than ${maxBytes} bytes`);
        }
        chunks.push(chunk as Buffer);
      }
      return Buffer.concat(chunks);
    } catch (error) {
      if (error instanceof ImageEngineError) throw error;
      const { cause, code, name } = error as Error & { cause?: unknown; code?: string };
      if (error instanceof ForbiddenAddressError || cause instanceof ForbiddenAddressError) {
        const forbidden = (error instanceof ForbiddenAddressError ? error : cause) as Error;
        throw refused(`${forbidden.message}, which is not fetched`);
      }
      if (name === "TimeoutError" || code === "UND_ERR_HEADERS_TIMEOUT" || code === "UND_ERR_BODY_TIMEOUT") {
        throw refused(`${url} did not answer within ${timeoutMs / 1000} s`);
      }
      throw refused(`${url} could not be fetched (${code ?? (error as Error).message})`);
    }
  }
}

function refused(reason: string): ImageEngineError {
  return new ImageEngineError(`the image prompt was refused: ${reason}`);
}
