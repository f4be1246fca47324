import {
  type ChatTarget,
  type GenerationView,
  generationView,
  type Logger,
  MessageGoneError,
  type PreviewFile,
  type StoreCollection,
} from "@imagehub/chat-core";
import type { ImageGeneration } from "@imagehub/domain";
import { webApi } from "@slack/bolt";
import { type ImageDisplay, imagesComment, statusMessage } from "../blocks/status-message.blocks.js";
import { NotInstalledError, type WorkspaceClients } from "../installations/workspace-clients.js";

export interface StatusMessagesOptions {
  workspaces: WorkspaceClients;
  /** The watermarked previews of a finished generation, fetched with the workspace's imagehub key. */
  previewsFor: (teamId: string, view: GenerationView) => Promise<PreviewFile[]>;
  /** Slack fetches imagehub's image links itself; otherwise the previews are uploaded. */
  isImagesPublic: boolean;
  /** The generations whose previews are in their thread, kept across restarts (the bot's store). */
  uploadedPreviews: StoreCollection<UploadedPreviews>;
  logger: Pick<Logger, "warn">;
}

export interface UploadedPreviews {
  generationId: string;
  uploadedAt: string;
}

/** Uploads remembered: far more than imagehub may still redeliver (its retries last about a day). */
const REMEMBERED_UPLOADS = 5_000;

/**
 * Slack's answers that no redelivery of the event will change: the message, its channel or the
 * installation is gone. Failing the delivery would only have imagehub retry it, and in the end disable the
 * workspace's webhook.
 */
const GONE = new Set([
  "message_not_found",
  "cant_update_message",
  "channel_not_found",
  "is_archived",
  "not_in_channel",
  "account_inactive",
  "token_revoked",
  "invalid_auth",
]);

/**
 * The one message per generation that everyone in the channel sees: posted when `/generate` runs, then
 * updated (chat.update) as imagehub's webhook events arrive, up to the 4 images and their Buy buttons.
 */
export class StatusMessages {
  private readonly display: ImageDisplay;

  constructor(private readonly options: StatusMessagesOptions) {
    this.display = options.isImagesPublic ? "image-blocks" : "thread-files";
  }

  /** Posts the message of a generation about to be created; answers its ts. */
  async post(client: webApi.WebClient, channelId: string, view: GenerationView): Promise<string> {
    const posted = await client.chat.postMessage({
      channel: channelId,
      ...statusMessage(view, this.display),
    });
    if (!posted.ts) throw new Error("chat.postMessage answered no ts");
    return posted.ts;
  }

  /** Takes back the message of a generation imagehub refused. */
  async withdraw(client: webApi.WebClient, channelId: string, ts: string): Promise<void> {
    await client.chat.delete({ channel: channelId, ts });
  }

  /**
   * Shows the generation in its message (chat-core's queue calls it with the latest state). The Web API
   * client sits out rate limits (`ratelimited`, Retry-After); a refusal that will not heal is a
   * MessageGoneError. An upload Slack refuses does not keep the message from its final state and buttons.
   */
  readonly show = async (target: ChatTarget, generation: ImageGeneration): Promise<void> => {
    try {
      const client = await this.options.workspaces.clientFor(target.teamId);
      const view = generationView(generation);
      let display = this.display;
      if (view.phase === "done" && display === "thread-files") {
        const isShared = await this.upload(client, target, generation.id, view).then(
          () => true,
          (error: unknown) => {
            const reason = goneReason(error);
            if (reason === undefined) throw error;
            this.options.logger.warn(
              { generationId: generation.id, channelId: target.channelId, reason },
              "previews not uploaded; the message ends without them",
            );
            return false;
          },
        );
        if (!isShared) display = "files-refused";
      }
      await client.chat.update({
        channel: target.channelId,
        ts: target.messageId,
        ...statusMessage(view, display),
      });
    } catch (error) {
      const reason = goneReason(error);
      if (reason === undefined) throw error;
      throw new MessageGoneError(reason);
    }
  };

  /**
   * Uploads the previews, fetched through the API, into the message's thread: everyone in the channel sees
   * them even when imagehub is not reachable from the internet. Once only: the completion is delivered
   * again when the update after the upload failed, or after a restart, and the thread keeps the first.
   */
  private async upload(
    client: webApi.WebClient,
    target: ChatTarget,
    generationId: string,
    view: GenerationView,
  ): Promise<void> {
    const uploaded = this.options.uploadedPreviews;
    if (await uploaded.get(generationId)) return;
    const previews = await this.options.previewsFor(target.teamId, view);
    await client.files.uploadV2({
      channel_id: target.channelId,
      thread_ts: target.messageId,
      initial_comment: imagesComment(view),
      file_uploads: previews.map((preview) => ({
        file: preview.jpeg,
        filename: preview.name,
        title: `Image ${preview.number}`,
        alt_text: `Image ${preview.number} of “${view.title}”`,
      })),
    });
    await uploaded.set(generationId, { generationId, uploadedAt: new Date().toISOString() });
    const forgotten = (await uploaded.values())
      .sort((a, b) => a.uploadedAt.localeCompare(b.uploadedAt))
      .slice(0, -REMEMBERED_UPLOADS);
    for (const record of forgotten) await uploaded.delete(record.generationId);
  }
}

/** Why the message cannot be shown any more, or undefined when trying again may work. */
function goneReason(error: unknown): string | undefined {
  if (error instanceof NotInstalledError) return error.message;
  if (!(error instanceof Error && "code" in error && error.code === webApi.ErrorCode.PlatformError))
    return undefined;
  const slackError = (error as webApi.WebAPIPlatformError).data.error;
  return GONE.has(slackError) ? slackError : undefined;
}
