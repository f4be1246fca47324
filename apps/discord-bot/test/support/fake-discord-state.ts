import {
  ADMINISTRATOR,
  ALL_PERMISSIONS,
  CHANNEL_REFUSALS,
  type ChannelRefusal,
  EPHEMERAL,
  type FakeAttachment,
  type FakeMessage,
  type InteractionRecord,
  type RecordedCall,
} from "./discord-wire.js";

/**
 * What the fake Discord holds: its servers, channels and messages, the interactions and their answers, and
 * the reading helpers tests use. The gateway and the REST routes build on it.
 */
export abstract class FakeDiscordState {
  readonly applicationId = "900000000000000001";

  readonly botUserId = "900000000000000002";

  readonly guildId = "900000000000000010";

  readonly channelId = "900000000000000020";

  readonly messages = new Map<string, FakeMessage>();

  readonly calls: RecordedCall[] = [];

  /** A second text channel of the server, for tests that need two. */
  readonly otherChannelId = "900000000000000021";

  /** A second server the bot is in, with a channel of its own. */
  readonly otherGuildId = "900000000000000030";

  readonly otherGuildChannelId = "900000000000000031";

  /** Permissions the bot lacks in a channel, besides those of a refusal (e.g. READ_MESSAGE_HISTORY). */
  readonly channelPermissionsDenied = new Map<string, bigint>();

  /** Channels someone deleted: every route naming them answers 10003 Unknown Channel. */
  readonly deletedChannels = new Set<string>();

  /** Direct messages the bot sent, by the user they went to. */
  readonly directMessages = new Map<string, FakeMessage[]>();

  /** The bot's DM channels, by channel id: the user each is with. */
  protected readonly dmChannels = new Map<string, string>();

  /** Channels that refuse the bot user, and how. */
  readonly channelRefusals = new Map<string, ChannelRefusal>();

  protected readonly interactions = new Map<string, InteractionRecord>();

  /** Follow-up message ids by interaction token. */
  protected readonly followUps = new Map<string, string[]>();

  protected nextId = 1000n;

  /** Someone deletes a message: later edits of it answer 10008 Unknown Message. */
  deleteMessage(messageId: string): void {
    this.messages.delete(messageId);
  }

  /** Someone deletes a channel: later calls naming it answer 10003 Unknown Channel. */
  deleteChannel(channelId: string): void {
    this.deletedChannels.add(channelId);
  }

  /** Makes a message as old as if it had been posted `ms` ago. */
  ageMessage(messageId: string, ms: number): void {
    const message = this.messages.get(messageId);
    if (message) message.postedAt -= ms;
  }

  /** The bot's DM channel with a person, opened on first use as POST /users/@me/channels does. */
  directChannelWith(userId: string): string {
    const known = [...this.dmChannels].find(([, recipient]) => recipient === userId)?.[0];
    if (known !== undefined) return known;
    const channelId = this.snowflake();
    this.dmChannels.set(channelId, userId);
    return channelId;
  }

  /** The message that answers an interaction (its reply), or the one its button sits on. */
  answerTo(interactionId: string): FakeMessage | undefined {
    const record = this.interactions.get(interactionId);
    return record?.originalMessageId === undefined ? undefined : this.messages.get(record.originalMessageId);
  }

  /** What the person who acted sees last: a follow-up, else the answer (e.g. a refusal after a deferral). */
  lastAnswerTo(interactionId: string): FakeMessage | undefined {
    return this.followUpsTo(interactionId).at(-1) ?? this.answerTo(interactionId);
  }

  /** Follow-up messages sent for an interaction. */
  followUpsTo(interactionId: string): FakeMessage[] {
    const token = this.interactions.get(interactionId)?.token ?? "";
    return (this.followUps.get(token) ?? [])
      .map((id) => this.messages.get(id))
      .filter((message): message is FakeMessage => message !== undefined);
  }

  /** The server a channel belongs to. */
  protected guildOf(channelId: string): string {
    return channelId === this.otherGuildChannelId ? this.otherGuildId : this.guildId;
  }

  /** What the bot may do in a channel: everything, but what a refusal or a denial takes away. */
  protected botPermissionsIn(channelId: string): bigint {
    const refusal = this.channelRefusals.get(channelId);
    const withoutRefused = refusal ? CHANNEL_REFUSALS[refusal].withoutPermissions : 0n;
    const denied = this.channelPermissionsDenied.get(channelId) ?? 0n;
    return BigInt(ALL_PERMISSIONS) & ~withoutRefused & ~(denied === 0n ? 0n : denied | ADMINISTRATOR);
  }

  protected createMessage(
    channelId: string,
    data: Record<string, unknown>,
    files: FakeAttachment[],
  ): FakeMessage {
    const message: FakeMessage = {
      id: this.snowflake(),
      channel_id: channelId,
      content: "",
      embeds: [],
      components: [],
      attachments: [],
      flags: Number(data.flags ?? 0) & EPHEMERAL,
      statusHistory: [],
      imageHistory: [],
      postedAt: Date.now(),
    };
    if (data.allowed_mentions)
      message.allowed_mentions = data.allowed_mentions as FakeMessage["allowed_mentions"];
    if (data.message_reference) message.message_reference = data.message_reference as { message_id: string };
    this.messages.set(message.id, message);
    this.applyChanges(message, data, files);
    return message;
  }

  protected editMessage(message: FakeMessage, data: Record<string, unknown>, files: FakeAttachment[]): void {
    this.applyChanges(message, data, files);
  }

  /** Fields absent from an edit stay as they were; `attachments` lists what to keep and the new files. */
  protected applyChanges(message: FakeMessage, data: Record<string, unknown>, files: FakeAttachment[]): void {
    if (typeof data.content === "string") message.content = data.content;
    if (Array.isArray(data.embeds)) {
      message.embeds = data.embeds as FakeMessage["embeds"];
      const status = message.embeds[0]?.fields?.find((field) => field.name === "Status")?.value;
      if (status !== undefined) message.statusHistory.push(status);
      message.imageHistory.push((message.embeds[0] as { image?: { url?: string } } | undefined)?.image?.url);
    }
    if (Array.isArray(data.components)) message.components = data.components as FakeMessage["components"];
    if (Array.isArray(data.attachments)) {
      const kept = message.attachments.filter((attachment) =>
        (data.attachments as { id: unknown }[]).some((listed) => String(listed.id) === attachment.id),
      );
      message.attachments = [...kept, ...files.map((file) => ({ ...file, id: this.snowflake() }))];
    } else if (files.length > 0) {
      message.attachments = [
        ...message.attachments,
        ...files.map((file) => ({ ...file, id: this.snowflake() })),
      ];
    }
  }

  protected toJson(message: FakeMessage) {
    return {
      id: message.id,
      type: 0,
      channel_id: message.channel_id,
      author: this.botUser(),
      content: message.content,
      embeds: message.embeds,
      components: message.components,
      attachments: message.attachments.map((attachment) => ({
        id: attachment.id,
        filename: attachment.filename,
        size: attachment.data.length,
        content_type: attachment.contentType,
        url: `${this.url}/attachments/${attachment.id}/${attachment.filename}`,
        proxy_url: `${this.url}/attachments/${attachment.id}/${attachment.filename}`,
      })),
      flags: message.flags,
      timestamp: new Date().toISOString(),
      edited_timestamp: null,
      tts: false,
      mention_everyone: false,
      mentions: [],
      mention_roles: [],
      pinned: false,
      webhook_id: this.applicationId,
      application_id: this.applicationId,
    };
  }

  protected channelName(channelId: string): string {
    return channelId === this.channelId ? "general" : `channel-${channelId.slice(-2)}`;
  }

  protected botUser() {
    return {
      id: this.botUserId,
      username: "imagehub",
      discriminator: "0",
      bot: true,
      avatar: null,
      global_name: null,
    };
  }

  protected snowflake(): string {
    this.nextId += 1n;
    return (BigInt(Date.now() - 1_420_070_400_000) * 4_194_304n + this.nextId).toString();
  }

  /** Where the fake listens. */
  abstract get url(): string;
}
