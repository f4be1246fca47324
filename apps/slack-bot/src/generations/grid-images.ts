import type { IncomingMessage, ServerResponse } from "node:http";
import {
  type ChatCore,
  composeGrid,
  fetchPreviews,
  generationView,
  type Logger,
  type SecretBox,
} from "@imagehub/chat-core";

/**
 * Where the bot serves a generation's grid: /imagehub/grids/<team>/<generation>.jpg?signature=…, with
 * `images=n` for the grid of its first n images while it is drawn (a link per step: Slack keeps what it
 * fetched from a link).
 */
export const GRID_PATH_PREFIX = "/imagehub/grids/";
const GRID_PATH = /^\/imagehub\/grids\/([A-Za-z0-9_-]+)\/([A-Za-z0-9_-]+)\.jpg$/;
/** Grids composed lately, for Slack's fetches of the same message (each upload to its CDN, a retry). */
const REMEMBERED_GRIDS = 50;

export interface GridImagesOptions {
  core: Pick<ChatCore, "connections">;
  secretBox: SecretBox;
  /** GRID_PATH_PREFIX under BOT_PUBLIC_URL: Slack fetches the grids from there. */
  gridsUrl: string;
  logger: Pick<Logger, "warn">;
}

/**
 * The 2×2 grid of a finished generation's previews at a link of the bot's own, for an image block: with
 * SLACK_IMAGES_PUBLIC Slack fetches imagehub's links itself, and imagehub serves each preview but no grid;
 * so the message shows one grid in both modes (uploaded otherwise). The link is signed: only the bot's
 * own messages make the bot fetch and compose previews.
 */
export class GridImages {
  private readonly composed = new Map<string, Buffer>();

  constructor(private readonly options: GridImagesOptions) {}

  /** The signed link of the grid of a generation's first `images` images, or of all once Done. */
  urlFor(teamId: string, generationId: string, images?: number): string {
    const url = new URL(`${teamId}/${generationId}.jpg`, this.options.gridsUrl);
    if (images !== undefined) url.searchParams.set("images", String(images));
    url.searchParams.set("signature", this.options.secretBox.sign(signedText(teamId, generationId, images)));
    return url.href;
  }

  /** Node request listener for GRID_PATH_PREFIX; 404 for anything it did not sign. */
  readonly listener = (request: IncomingMessage, response: ServerResponse): void => {
    const url = new URL(request.url ?? "/", "http://bot");
    const [, teamId, generationId] = GRID_PATH.exec(url.pathname) ?? [];
    const signature = url.searchParams.get("signature") ?? "";
    const imagesParam = url.searchParams.get("images");
    const images = imagesParam === null ? undefined : Number(imagesParam);
    if (
      request.method !== "GET" ||
      teamId === undefined ||
      generationId === undefined ||
      !this.options.secretBox.isSignedByThisBot(signedText(teamId, generationId, images), signature)
    ) {
      response.writeHead(404).end();
      return;
    }
    this.gridOf(teamId, generationId, images)
      .then((jpeg) => response.writeHead(200, { "content-type": "image/jpeg" }).end(jpeg))
      .catch((error: unknown) => {
        this.options.logger.warn({ err: error, teamId, generationId }, "grid not served");
        response.writeHead(502).end();
      });
  };

  private async gridOf(teamId: string, generationId: string, images: number | undefined): Promise<Buffer> {
    const key = `${generationId}/${images ?? "all"}`;
    const known = this.composed.get(key);
    if (known) return known;
    const client = await this.options.core.connections.clientFor(teamId);
    const view = generationView(await client.generations.get(generationId));
    const shown = { ...view, images: view.images.slice(0, images ?? view.images.length) };
    const { jpeg } = await composeGrid(await fetchPreviews(client, shown));
    this.composed.set(key, jpeg);
    for (const oldest of this.composed.keys()) {
      if (this.composed.size <= REMEMBERED_GRIDS) break;
      this.composed.delete(oldest);
    }
    return jpeg;
  }
}

function signedText(teamId: string, generationId: string, images: number | undefined): string {
  return JSON.stringify(["grid", teamId, generationId, ...(images === undefined ? [] : [images])]);
}
