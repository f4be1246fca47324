import { type BuyOutcome, buyImage } from "./buy-image.js";
import type { ChatAction } from "./chat-actions.js";
import { chatTargetOf } from "./chat-target.js";
import { DEFAULT_LOCALE, type Locale, messagesFor } from "./i18n/locale.js";
import type { PreviewFile } from "./preview-images.js";
import type { SecretBox } from "./secret-box.js";
import type { TeamConnections } from "./team-connections.js";
import type { TeamSettingsStore } from "./team-settings.js";
import type { TeamUsage } from "./team-usage.js";

/** Who clicked Buy, as the platform knows them. */
export interface Buyer {
  userId: string;
  /** Discord: Manage Server; Slack: a workspace admin or owner (asked only when it matters). */
  isAdmin: () => Promise<boolean>;
  /** Whether they belong to a Discord role or a Slack user group. */
  isInGroup: (groupId: string) => Promise<boolean>;
  /** The language refusals are told to them in (English unless said). */
  locale?: Locale;
}

export type PurchaseOutcome = BuyOutcome | { kind: "refused"; imageNumber: number; message: string };

/** U n: bought as Buy n, with the clean image in full size for the chat to show. */
export type UpscaleOutcome =
  | Exclude<PurchaseOutcome, { kind: "bought" }>
  | (Extract<BuyOutcome, { kind: "bought" }> & { fullSize: PreviewFile });

export interface ChatPurchasesOptions {
  connections: TeamConnections;
  usage: TeamUsage;
  settings: TeamSettingsStore;
  /** Checks that the requester named in a generation's metaData is one this bot wrote. */
  secretBox: SecretBox;
  /** How the platform names a group in a sentence of a language (a role mention, a user group mention). */
  groupLabel: (groupId: string, locale: Locale) => string;
}

/**
 * `Buy n` with the team's rules: the person who asked for the images, the team's admins and the members
 * of the group the admins chose may buy; the team buys at most its daily cap of images. Refusals are told
 * to the clicker alone, before anything is debited.
 */
export class ChatPurchases {
  constructor(private readonly options: ChatPurchasesOptions) {}

  async buy(
    teamId: string,
    buyer: Buyer,
    action: Extract<ChatAction, { kind: "buy" }>,
  ): Promise<PurchaseOutcome> {
    const { connections, usage, settings: settingsStore, secretBox, groupLabel } = this.options;
    const settings = await settingsStore.get(teamId);
    const client = await connections.clientFor(teamId);
    // The generation's own record of its message, signed by the bot: it outlives the bot's status records.
    const target =
      action.generationId === undefined
        ? undefined
        : chatTargetOf(await client.generations.get(action.generationId), secretBox);
    const requester = target?.teamId === teamId ? target.userId : undefined;
    const groupId = settings.buyersGroupId;
    const mayBuy =
      (requester !== undefined && requester === buyer.userId) ||
      (await buyer.isAdmin()) ||
      (groupId !== undefined && (await buyer.isInGroup(groupId)));
    const { locale = DEFAULT_LOCALE } = buyer;
    if (!mayBuy) {
      return {
        kind: "refused",
        imageNumber: action.imageNumber,
        message: messagesFor(locale).limits.mayNotBuy(
          groupId === undefined ? undefined : groupLabel(groupId, locale),
        ),
      };
    }
    const capRefusal = await usage.reservePurchase(teamId, action.imageId, settings.dailyPurchaseCap, locale);
    if (capRefusal !== undefined)
      return { kind: "refused", imageNumber: action.imageNumber, message: capRefusal };
    try {
      const outcome = await buyImage(client, action);
      if (outcome.kind === "no-credits") await usage.cancelPurchase(teamId, action.imageId);
      return outcome;
    } catch (error) {
      await usage.cancelPurchase(teamId, action.imageId);
      throw error;
    }
  }

  /**
   * U n: Buy n with the same rules, then the clean image in full size, fetched through the API (chat users
   * see it even when imagehub is not reachable from the internet); its upscaled renditions are links.
   */
  async upscale(
    teamId: string,
    buyer: Buyer,
    { imageId, imageNumber, generationId }: Extract<ChatAction, { kind: "upscale" }>,
  ): Promise<UpscaleOutcome> {
    const outcome = await this.buy(teamId, buyer, { kind: "buy", imageId, imageNumber, generationId });
    if (outcome.kind !== "bought") return outcome;
    const client = await this.options.connections.clientFor(teamId);
    const file = await client.images.file(outcome.links.full);
    const jpeg = Buffer.from(await file.arrayBuffer());
    return { ...outcome, fullSize: { number: imageNumber, name: `image-${imageNumber}-full.jpg`, jpeg } };
  }
}
