import {
  type ChatTarget,
  composeGrid,
  FormRefusedError,
  type GenerationView,
  generationView,
  type Locale,
  type Logger,
  type MessageForm,
  MessageGoneError,
  type Messages,
  messagesFor,
  PermissionMissingError,
  type PreviewFile,
  type StoreCollection,
} from "@imagehub/chat-core";
import type { ImageGeneration } from "@imagehub/domain";
import type { webApi } from "@slack/bolt";
import {
  endNotice,
  goneNotice,
  gridComment,
  type ImageDisplay,
  imagesComment,
  permissionNotice,
  statusMessage,
} from "../blocks/status-message.blocks.js";
import { NotInstalledError, type WorkspaceClients } from "../installations/workspace-clients.js";
import { slackErrorCode } from "../slack-errors.js";

export interface StatusMessagesOptions {
  workspaces: WorkspaceClients;
  /** The watermarked previews of a finished generation, fetched with the workspace's imagehub key. */
  previewsFor: (teamId: string, view: GenerationView) => Promise<PreviewFile[]>;
  /**
   * Set when Slack fetches links itself (SLACK_IMAGES_PUBLIC): the grid's, of the first `images` images (all
   * of them when absent); otherwise the grid is uploaded once Done.
   */
  gridUrlFor: ((teamId: string, generationId: string, images?: number) => string) | undefined;
  /** The generations whose grid (and, on request, previews) is in their thread, kept across restarts. */
  uploadedPreviews: StoreCollection<UploadedPreviews>;
  logger: Pick<Logger, "warn">;
}

export interface UploadedPreviews {
  generationId: string;
  uploadedAt: string;
  /** The grid's Slack file, shown in the message. */
  gridFileId?: string;
  /** Set once the 4 previews were posted one by one in the thread (Show all). */
  isEachShared?: boolean;
  /** The images posted in full size in the thread (U n), by number. */
  fullSizeShared?: number[];
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
  "account_inactive",
  "token_revoked",
  "invalid_auth",
]);

/**
 * Slack's answers for a permission the bot lacks, which someone may grant (the message waits for it), with
 * who grants it: the bot taken out of the channel, a workspace preference that keeps apps from posting
 * there, a scope the app was installed without.
 */
const PERMISSIONS: Record<string, (error: webApi.WebAPIPlatformError, messages: Messages) => string> = {
  not_in_channel: (_, { slack }) => slack.permissions.notInChannel,
  restricted_action: (_, { slack }) => slack.permissions.restrictedAction,
  missing_scope: ({ data }, { slack }) => {
    const { needed } = data as { needed?: unknown };
    const scopes = typeof needed === "string" ? needed.split(",").map((scope) => `\`${scope}\``) : [];
    return slack.permissions.missingScope(scopes.join(", "));
  },
};

/**
 * The one message per generation that everyone in the channel sees: posted when `/generate` runs, then
 * updated (chat.update) as imagehub's webhook events arrive, up to the 2×2 grid of the images and their
 * buttons; and the short message that tells the requester it ended.
 */
export class StatusMessages {
  constructor(private readonly options: StatusMessagesOptions) {}

  /**
   * Posts the message of a generation about to be created; answers where it went. In a direct message
   * between people the bot cannot post: the message goes to the requester's own conversation with the bot.
   */
  async post(
    client: webApi.WebClient,
    { channelId, userId }: { channelId: string; userId: string },
    view: GenerationView,
  ): Promise<{ channelId: string; messageId: string }> {
    const postTo = (channel: string) => client.chat.postMessage({ channel, ...statusMessage(view) });
    let posted: Awaited<ReturnType<typeof postTo>>;
    try {
      posted = await postTo(channelId);
    } catch (error) {
      if (!isDirectMessage(channelId) || !NOT_A_MEMBER.has(slackErrorCode(error) ?? "")) throw error;
      // A user id as the channel posts in the app's conversation with that person (its Messages tab).
      posted = await postTo(userId);
    }
    if (!posted.ts || !posted.channel) throw new Error("chat.postMessage answered no ts");
    return { channelId: posted.channel, messageId: posted.ts };
  }

  /** Takes back the message of a generation imagehub refused. */
  async withdraw(client: webApi.WebClient, channelId: string, ts: string): Promise<void> {
    await client.chat.delete({ channel: channelId, ts });
  }

  /**
   * Shows the generation in its message, in a form (chat-core's queue calls it with the latest state). The
   * Web API client sits out rate limits (`ratelimited`, Retry-After); a refusal that will not heal is a
   * MessageGoneError, a permission the bot lacks a PermissionMissingError; Slack refusing the blocks (an image it could not fetch or show) a FormRefusedError,
   * and the queue tries the next form. An upload Slack refuses does not keep the message from its final
   * state and buttons.
   */
  readonly show = (target: ChatTarget, generation: ImageGeneration, form: MessageForm): Promise<void> =>
    this.withRefusalsNamed(target, async () => {
      const client = await this.options.workspaces.clientFor(target.teamId);
      const view = generationView(generation, target.locale);
      const display =
        view.phase === "done"
          ? await this.finalDisplay(client, target, generation.id, view, form)
          : this.progressDisplay(target, generation.id, view, form);
      try {
        await client.chat.update({
          channel: target.channelId,
          ts: target.messageId,
          ...statusMessage(view, display),
        });
      } catch (error) {
        if (slackErrorCode(error) !== "invalid_blocks") throw error;
        throw new FormRefusedError(`invalid_blocks: ${slackErrorDetails(error)}`);
      }
    });

  /** Posts the short new message that mentions the requester: an update of the status message notifies nobody. */
  readonly announce = (target: ChatTarget, generation: ImageGeneration): Promise<void> =>
    this.withRefusalsNamed(target, async () => {
      const client = await this.options.workspaces.clientFor(target.teamId);
      await client.chat.postMessage({
        channel: target.channelId,
        ...endNotice(generationView(generation, target.locale), target.userId),
      });
    });

  /** Tells the requester, in their conversation with the bot, that their message is gone. */
  readonly tellRequester = async (target: ChatTarget, generation: ImageGeneration, reason: string) => {
    const client = await this.options.workspaces.clientFor(target.teamId);
    await client.chat.postMessage({
      channel: target.userId,
      ...goneNotice(generationView(generation, target.locale), target.channelId, reason),
    });
  };

  /** Tells the requester, in their conversation with the bot, of the permission it lacks to update their message. */
  readonly tellPermissionMissing = async (
    target: ChatTarget,
    generation: ImageGeneration,
    missing: string,
  ) => {
    const client = await this.options.workspaces.clientFor(target.teamId);
    await client.chat.postMessage({
      channel: target.userId,
      ...permissionNotice(generationView(generation, target.locale), target.channelId, missing),
    });
  };

  /**
   * Show all: the 4 previews one by one in the message's thread, once (a second click finds them there), in
   * the clicker's language. Answers false when Slack refuses files in the channel.
   */
  async shareEach(
    client: webApi.WebClient,
    target: Pick<ChatTarget, "teamId" | "channelId" | "messageId">,
    generation: ImageGeneration,
    locale: Locale,
  ): Promise<boolean> {
    const uploaded = this.options.uploadedPreviews;
    if ((await uploaded.get(generation.id))?.isEachShared) return true;
    const view = generationView(generation, locale);
    const messages = messagesFor(locale);
    const previews = await this.options.previewsFor(target.teamId, view);
    try {
      await client.files.uploadV2({
        channel_id: target.channelId,
        thread_ts: target.messageId,
        initial_comment: imagesComment(view),
        file_uploads: previews.map((preview) => ({
          file: preview.jpeg,
          filename: preview.name,
          title: messages.slack.imageLink(preview.number),
          alt_text: messages.view.imageAlt(preview.number, view.title),
        })),
      });
    } catch (error) {
      if (!isRefusedHere(error)) throw error;
      return false;
    }
    await uploaded.update(generation.id, (current) => ({
      generationId: generation.id,
      uploadedAt: current?.uploadedAt ?? new Date().toISOString(),
      ...(current?.gridFileId !== undefined && { gridFileId: current.gridFileId }),
      isEachShared: true,
    }));
    return true;
  }

  /**
   * U n: the clean image in full size in the message's thread, once per image (a second click finds it
   * there), in the buyer's language. Slack refusing files in the channel leaves the buyer with the links they
   * were told.
   */
  async shareFullSize(
    client: webApi.WebClient,
    { channelId, messageId }: { channelId: string; messageId: string },
    {
      generationId,
      fullSize,
      userId,
      locale,
    }: { generationId: string; fullSize: PreviewFile; userId: string; locale: Locale },
  ): Promise<void> {
    const messages = messagesFor(locale);
    const uploaded = this.options.uploadedPreviews;
    if ((await uploaded.get(generationId))?.fullSizeShared?.includes(fullSize.number)) return;
    try {
      await client.files.uploadV2({
        channel_id: channelId,
        thread_ts: messageId,
        initial_comment: messages.purchases.upscaledFor(fullSize.number, `<@${userId}>`),
        file_uploads: [
          {
            file: fullSize.jpeg,
            filename: fullSize.name,
            title: messages.view.fullSizeAlt(fullSize.number),
            alt_text: messages.view.fullSizeAlt(fullSize.number),
          },
        ],
      });
    } catch (error) {
      if (!isRefusedHere(error)) throw error;
      this.options.logger.warn(
        { generationId, channelId, reason: slackErrorCode(error) },
        "full size not shared",
      );
      return;
    }
    await uploaded.update(generationId, (current) => ({
      ...current,
      generationId,
      uploadedAt: current?.uploadedAt ?? new Date().toISOString(),
      fullSizeShared: [...(current?.fullSizeShared ?? []), fullSize.number],
    }));
  }

  /** The grid so far, while Slack fetches links itself and takes them (the first form). */
  private progressDisplay(
    target: ChatTarget,
    generationId: string,
    view: GenerationView,
    form: MessageForm,
  ): ImageDisplay | undefined {
    const { gridUrlFor } = this.options;
    if (view.phase !== "active" || view.images.length === 0 || form !== "grid" || !gridUrlFor)
      return undefined;
    return { kind: "grid-url", url: gridUrlFor(target.teamId, generationId, view.images.length) };
  }

  private async finalDisplay(
    client: webApi.WebClient,
    target: ChatTarget,
    generationId: string,
    view: GenerationView,
    form: MessageForm,
  ): Promise<ImageDisplay> {
    const { gridUrlFor } = this.options;
    if (form === "links") return { kind: "links" };
    if (form === "grid" && gridUrlFor)
      return { kind: "grid-url", url: gridUrlFor(target.teamId, generationId) };
    try {
      return { kind: "grid-file", fileId: await this.uploadGrid(client, target, generationId, view) };
    } catch (error) {
      if (!isRefusedHere(error)) throw error;
      this.options.logger.warn(
        { generationId, channelId: target.channelId, reason: slackErrorCode(error) ?? String(error) },
        "previews not uploaded; the message ends without them",
      );
      return { kind: "files-refused" };
    }
  }

  /**
   * Uploads the grid of the previews, fetched through the API, into the message's thread: everyone in the
   * channel may see it even when imagehub is not reachable from the internet, and the message shows it by
   * its file id. Once only: the completion is delivered again when the update after the upload failed, or
   * after a restart, and the thread keeps the first.
   */
  private async uploadGrid(
    client: webApi.WebClient,
    target: ChatTarget,
    generationId: string,
    view: GenerationView,
  ): Promise<string> {
    const uploaded = this.options.uploadedPreviews;
    const known = (await uploaded.get(generationId))?.gridFileId;
    if (known !== undefined) return known;
    const grid = await composeGrid(await this.options.previewsFor(target.teamId, view));
    const result = await client.files.uploadV2({
      channel_id: target.channelId,
      thread_ts: target.messageId,
      initial_comment: gridComment(view),
      file_uploads: [
        {
          file: grid.jpeg,
          filename: grid.name,
          title: messagesFor(view.locale).view.gridTitle(view.images.length, true),
          alt_text: messagesFor(view.locale).view.gridAlt(view.images.length, view.title, true),
        },
      ],
    });
    // The SDK answers one files.completeUploadExternal response per upload.
    const fileId = (result as { files?: { files?: { id?: string }[] }[] }).files?.[0]?.files?.[0]?.id;
    if (!fileId) throw new Error("files.uploadV2 answered no file id");
    await uploaded.update(generationId, (current) => ({
      ...current,
      generationId,
      uploadedAt: current?.uploadedAt ?? new Date().toISOString(),
      gridFileId: fileId,
    }));
    const forgotten = (await uploaded.values())
      .sort((a, b) => a.uploadedAt.localeCompare(b.uploadedAt))
      .slice(0, -REMEMBERED_UPLOADS);
    for (const record of forgotten) await uploaded.delete(record.generationId);
    return fileId;
  }

  /**
   * Slack's refusals as chat-core's queue tells them apart: gone, or a permission the bot lacks (named in the
   * requester's language).
   */
  private async withRefusalsNamed(target: ChatTarget, work: () => Promise<void>): Promise<void> {
    try {
      await work();
    } catch (error) {
      const missing = missingPermission(error, messagesFor(target.locale));
      if (missing !== undefined) throw new PermissionMissingError(missing, slackErrorCode(error) ?? "");
      const reason = goneReason(error);
      if (reason === undefined) throw error;
      throw new MessageGoneError(reason);
    }
  }
}

/** Slack's answers when the bot is not in a conversation (a direct message between other people). */
const NOT_A_MEMBER = new Set(["channel_not_found", "not_in_channel"]);

/** A direct message (D…), between people or with the bot. */
function isDirectMessage(channelId: string): boolean {
  return channelId.startsWith("D");
}

/** What Slack said of refused blocks (e.g. "downloading image failed [json-pointer:/blocks/4/image_url]"). */
function slackErrorDetails(error: unknown): string {
  const { errors } = (error as webApi.WebAPIPlatformError).data as { errors?: unknown };
  return Array.isArray(errors) ? errors.join("; ") : "";
}

/** What the bot lacks (and who grants it) when Slack refused it a permission, else undefined. */
function missingPermission(error: unknown, messages: Messages = messagesFor()): string | undefined {
  const code = slackErrorCode(error);
  const describe = code === undefined ? undefined : PERMISSIONS[code];
  return describe?.(error as webApi.WebAPIPlatformError, messages);
}

/** Files refused in the channel, for good or until a permission is granted: the message goes on without them. */
function isRefusedHere(error: unknown): boolean {
  return goneReason(error) !== undefined || missingPermission(error) !== undefined;
}

/** Why the message cannot be shown any more, or undefined when trying again may work. */
function goneReason(error: unknown): string | undefined {
  if (error instanceof NotInstalledError) return error.message;
  const code = slackErrorCode(error);
  return code !== undefined && GONE.has(code) ? code : undefined;
}
