import { WebSocket } from "ws";
import { ALL_PERMISSIONS, type FakeMessage, type Member, resolvedOf } from "./discord-wire.js";
import { FakeDiscordState } from "./fake-discord-state.js";

/**
 * The fake Discord's gateway: the sessions of the bot's replicas (hello, identify, ready, guild create,
 * heartbeats) and the interactions it dispatches to them, as a member's command or click sends them.
 */
export abstract class FakeDiscordGateway extends FakeDiscordState {
  protected readonly sockets = new Set<WebSocket>();

  /** Sessions that identified (READY sent): they receive the dispatches. */
  protected readonly identified = new Set<WebSocket>();

  protected sequence = 0;

  /** Sessions currently connected to the gateway (one per running bot). */
  get connectedSessions(): number {
    return [...this.sockets].filter((socket) => socket.readyState === WebSocket.OPEN).length;
  }

  /** Sends a slash command to the bot, as Discord does when a member runs it; answers its id. */
  runCommand(
    name: string,
    options: { name: string; type: number; value?: unknown; options?: unknown[] }[],
    member: Member,
    channelId = this.channelId,
  ): string {
    return this.interact(
      2,
      { id: this.snowflake(), name, type: 1, options, ...resolvedOf(options) },
      member,
      undefined,
      channelId,
    );
  }

  /**
   * Sends a slash command from a person's direct messages with the bot (Discord's BOT_DM context: no guild,
   * no member, the user alone); answers its id.
   */
  runCommandInDirect(
    name: string,
    options: { name: string; type: number; value?: unknown; options?: unknown[] }[],
    user: Member,
  ): string {
    return this.interact(
      2,
      { id: this.snowflake(), name, type: 1, options, ...resolvedOf(options) },
      user,
      undefined,
      this.directChannelWith(user.id),
    );
  }

  /** Clicks a button of a message the bot posted; answers the interaction's id. */
  clickButton(messageId: string, customId: string, member: Member): string {
    const message = this.messages.get(messageId);
    if (!message) throw new Error(`no message ${messageId}`);
    // Discord sends a click only for a button the message holds: any other custom_id is never seen.
    const buttons = message.components.flatMap((row) => row.components.map((button) => button.custom_id));
    if (!buttons.includes(customId)) throw new Error(`the message ${messageId} has no button ${customId}`);
    return this.interact(3, { custom_id: customId, component_type: 2 }, member, message);
  }

  protected interact(
    type: number,
    data: unknown,
    member: Member,
    message?: FakeMessage,
    channelId = message?.channel_id ?? this.channelId,
  ): string {
    const id = this.snowflake();
    const token = `token-${id}`;
    this.interactions.set(id, {
      id,
      token,
      createdAt: Date.now(),
      channelId,
      isAcknowledged: false,
      originalMessageId: message?.id,
    });
    const user = {
      id: member.id,
      username: member.username,
      discriminator: "0",
      global_name: null,
      avatar: null,
    };
    if (this.dmChannels.has(channelId)) {
      this.dispatch("INTERACTION_CREATE", {
        id,
        application_id: this.applicationId,
        type,
        data,
        channel_id: channelId,
        channel: { id: channelId, type: 1, recipients: [user] },
        user,
        token,
        version: 1,
        app_permissions: ALL_PERMISSIONS,
        locale: member.locale ?? "en-US",
        entitlements: [],
        authorizing_integration_owners: { "0": this.guildId },
        context: 1,
        ...(message && { message: this.toJson(message) }),
      });
      return id;
    }
    const appPermissions = String(this.botPermissionsIn(channelId));
    const guildId = this.guildOf(channelId);
    this.dispatch("INTERACTION_CREATE", {
      id,
      application_id: this.applicationId,
      type,
      data,
      guild_id: guildId,
      guild: { id: guildId, locale: "en-US", features: [] },
      channel_id: channelId,
      channel: { id: channelId, type: 0, guild_id: guildId, name: this.channelName(channelId) },
      member: {
        user,
        roles: member.roles ?? [],
        permissions: member.permissions ?? ALL_PERMISSIONS,
        joined_at: "2026-01-01T00:00:00.000Z",
        deaf: false,
        mute: false,
        flags: 0,
      },
      token,
      version: 1,
      app_permissions: appPermissions,
      locale: member.locale ?? "en-US",
      guild_locale: "en-US",
      entitlements: [],
      authorizing_integration_owners: { "0": guildId },
      context: 0,
      ...(message && { message: this.toJson(message) }),
    });
    return id;
  }

  protected openSession(socket: WebSocket): void {
    this.sockets.add(socket);
    socket.on("close", () => {
      this.sockets.delete(socket);
      this.identified.delete(socket);
    });
    socket.on("message", (raw) => {
      const packet = JSON.parse(String(raw)) as { op: number; d: unknown };
      if (packet.op === 1) socket.send(JSON.stringify({ op: 11, d: null }));
      if (packet.op === 2) this.ready(socket);
    });
    socket.send(JSON.stringify({ op: 10, d: { heartbeat_interval: 45_000 } }));
  }

  protected ready(socket: WebSocket): void {
    const send = (t: string, d: unknown) => this.dispatch(t, d, socket);
    send("READY", {
      v: 10,
      user: this.botUser(),
      guilds: [this.guildId, this.otherGuildId].map((id) => ({ id, unavailable: true })),
      session_id: `session-${this.snowflake()}`,
      resume_gateway_url: this.url.replace("http", "ws"),
      shard: [0, 1],
      application: { id: this.applicationId, flags: 0 },
    });
    for (const [guildId, channelIds] of [
      [this.guildId, [this.channelId, this.otherChannelId]],
      [this.otherGuildId, [this.otherGuildChannelId]],
    ] as const) {
      send("GUILD_CREATE", this.guildJson(guildId, channelIds));
    }
    this.identified.add(socket);
  }

  protected guildJson(guildId: string, channelIds: readonly string[]) {
    return {
      id: guildId,
      name: `Server ${guildId.slice(-2)}`,
      icon: null,
      owner_id: "1",
      roles: [
        {
          id: guildId,
          name: "@everyone",
          permissions: "0",
          position: 0,
          color: 0,
          hoist: false,
          managed: false,
          mentionable: false,
          flags: 0,
        },
      ],
      emojis: [],
      stickers: [],
      features: [],
      channels: channelIds.map((id, position) => ({
        id,
        type: 0,
        name: this.channelName(id),
        position,
        permission_overwrites: [],
      })),
      threads: [],
      members: [],
      presences: [],
      voice_states: [],
      stage_instances: [],
      guild_scheduled_events: [],
      member_count: 2,
      joined_at: "2026-01-01T00:00:00.000Z",
      large: false,
      unavailable: false,
      premium_tier: 0,
      preferred_locale: "en-US",
    };
  }

  /**
   * Sends a gateway event to the given session, or else to every session of the bot: Discord gives each
   * session connected on a shard every event of that shard, so replicas of one bot all receive each
   * interaction (https://discord.com/developers/docs/events/gateway#sharding).
   */
  protected dispatch(t: string, d: unknown, to?: WebSocket): void {
    const sockets = to
      ? [to]
      : [...this.identified].filter((candidate) => candidate.readyState === WebSocket.OPEN);
    if (sockets.length === 0) throw new Error("no bot is connected to the gateway");
    this.sequence += 1;
    for (const socket of sockets) socket.send(JSON.stringify({ op: 0, t, s: this.sequence, d }));
  }
}
