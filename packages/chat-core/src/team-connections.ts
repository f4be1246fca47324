import { ApiError, ImagehubClient } from "@imagehub/client";
import type { ApiKeyCheck, WebhookEventType } from "@imagehub/domain";
import type { StoreCollection } from "./bot-store.js";
import type { ChatPlatform } from "./chat-target.js";
import { en } from "./i18n/en.js";
import type { SecretBox } from "./secret-box.js";

/** The events a status message follows. */
export const FOLLOWED_EVENTS: WebhookEventType[] = [
  "print.active",
  "print.progress",
  "print.completed",
  "print.failed",
];

/** The connection that serves every team without one of its own, when configuration gives a key. */
export const DEFAULT_CONNECTION = "default";

/** A team's link to an imagehub account, as kept at rest: secrets sealed. */
export interface TeamConnectionRecord {
  connectionId: string;
  sealedApiKey: string;
  webhookId: string;
  webhookUrl: string;
  sealedWebhookSecret: string;
  accountEmail: string;
  connectedBy: string;
  connectedAt: string;
}

export interface TeamConnectionsOptions {
  platform: ChatPlatform;
  records: StoreCollection<TeamConnectionRecord>;
  secretBox: SecretBox;
  /** The imagehub API. */
  apiBaseUrl: string;
  /** Where imagehub reaches this bot's webhook receiver (see webhook-receiver.ts). */
  publicUrl: string;
  /** Serves the teams of `defaultKeyTeams` that have not connected a key of their own. */
  defaultApiKey?: string | undefined;
  /** The teams the operator opted in to the default key; no other team ever uses it. */
  defaultKeyTeams?: Iterable<string> | undefined;
}

/** Not connected: the message says how to connect (chat users read it in their language: describeFailure). */
export class NotConnectedError extends Error {
  constructor() {
    super(en.failures.notConnected);
  }
}

/**
 * Which imagehub account each team uses: connecting checks the key, subscribes this bot's webhook
 * receiver for it, and keeps both the key and the webhook's secret sealed at rest.
 */
export class TeamConnections {
  private readonly clients = new Map<string, ImagehubClient>();
  private readonly defaultKeyTeams: Set<string>;
  private defaultApiKey: string | undefined;

  constructor(private readonly options: TeamConnectionsOptions) {
    this.defaultKeyTeams = new Set(options.defaultKeyTeams ?? []);
    this.defaultApiKey = options.defaultApiKey;
  }

  /** Opts a team in to the default key (a single-workspace Slack app's own workspace). */
  allowDefaultKey(teamId: string): void {
    this.defaultKeyTeams.add(teamId);
  }

  /** The app is distributed (anyone may add it): the operator's key serves no team at all. */
  turnOffDefaultKey(): void {
    this.defaultApiKey = undefined;
    this.defaultKeyTeams.clear();
  }

  get hasDefaultKey(): boolean {
    return this.defaultApiKey !== undefined && this.defaultKeyTeams.size > 0;
  }

  /**
   * Whether the deliveries of a connection's webhook may act on a team's messages: a team's own
   * connection on that team alone, the default key's on the teams opted in to it.
   */
  async servesTeam(connectionId: string, teamId: string): Promise<boolean> {
    if (connectionId === DEFAULT_CONNECTION) return this.defaultKeyTeams.has(teamId);
    return connectionId === teamId && (await this.options.records.get(teamId)) !== undefined;
  }

  /** The client acting for a team: its own key, else the default one if the team is opted in to it. */
  async clientFor(teamId: string): Promise<ImagehubClient> {
    const record = await this.options.records.get(teamId);
    const apiKey = record
      ? this.options.secretBox.open(record.sealedApiKey)
      : this.defaultKeyTeams.has(teamId)
        ? this.defaultApiKey
        : undefined;
    if (apiKey === undefined) {
      throw new NotConnectedError();
    }
    return this.client(apiKey);
  }

  async isConnected(teamId: string): Promise<boolean> {
    return (await this.options.records.get(teamId)) !== undefined;
  }

  /** A connection's webhook and its signing secret, by the id its webhook URL carries. */
  async webhookOf(connectionId: string): Promise<{ webhookId: string; secret: string } | undefined> {
    const record = await this.options.records.get(connectionId);
    return (
      record && {
        webhookId: record.webhookId,
        secret: this.options.secretBox.open(record.sealedWebhookSecret),
      }
    );
  }

  /**
   * Checks the key, subscribes the webhook receiver for it, and replaces any previous connection: the new
   * webhook is recorded before the old one is removed, so that the team's path always answers with a
   * webhook imagehub holds (a delivery in between is never told 410 Gone, which disables its webhook).
   */
  async connect(teamId: string, apiKey: string, userId: string): Promise<ApiKeyCheck> {
    const client = this.client(apiKey);
    const account = await client.keys.check();
    const previous = await this.options.records.get(teamId);
    await this.subscribe(teamId, apiKey, account, userId);
    if (previous) await this.unsubscribe(previous);
    return account;
  }

  /** Removes the team's key and its webhook; false when it had none. */
  async disconnect(teamId: string): Promise<boolean> {
    const record = await this.options.records.get(teamId);
    if (!record) return false;
    await this.unsubscribe(record);
    await this.options.records.delete(teamId);
    return true;
  }

  /**
   * Subscribes the default key's webhook at start-up, once, and again whenever the bot's public URL has
   * changed or the webhook is gone.
   */
  async subscribeDefault(): Promise<void> {
    const apiKey = this.defaultApiKey;
    if (apiKey === undefined || !this.hasDefaultKey) return;
    const record = await this.options.records.get(DEFAULT_CONNECTION);
    if (record && record.webhookUrl === this.webhookUrl(DEFAULT_CONNECTION)) {
      const exists = await this.client(apiKey)
        .webhooks.get(record.webhookId)
        .then((webhook) => !webhook.disabled)
        .catch((error: unknown) => !(error instanceof ApiError && error.statusCode === 404));
      if (exists) return;
    }
    const account = await this.client(apiKey).keys.check();
    await this.subscribe(DEFAULT_CONNECTION, apiKey, account, "configuration");
    if (record) await this.unsubscribe(record);
  }

  /**
   * Turns every connection's webhook on again, replaying what imagehub held while it was off: a webhook
   * disabled while the bot was down (or failing) would otherwise leave its team's messages behind for good.
   * Answers the connections whose webhook it enabled.
   */
  async enableWebhooks(): Promise<string[]> {
    const enabled: string[] = [];
    for (const record of await this.options.records.values()) {
      const client = this.client(this.options.secretBox.open(record.sealedApiKey));
      const webhook = await client.webhooks.get(record.webhookId).catch((error: unknown) => {
        // A webhook or key removed on imagehub's side: /imagehub connect makes a new one.
        if (error instanceof ApiError && (error.statusCode === 404 || error.statusCode === 401))
          return undefined;
        throw error;
      });
      if (webhook?.disabled) {
        await client.webhooks.enable(record.webhookId, { replay: true });
        enabled.push(record.connectionId);
      }
    }
    return enabled;
  }

  private async subscribe(connectionId: string, apiKey: string, account: ApiKeyCheck, userId: string) {
    const webhookUrl = this.webhookUrl(connectionId);
    const webhook = await this.client(apiKey).webhooks.subscribe({
      url: webhookUrl,
      events: FOLLOWED_EVENTS,
    });
    const { secretBox } = this.options;
    await this.options.records.set(connectionId, {
      connectionId,
      sealedApiKey: secretBox.seal(apiKey),
      webhookId: webhook.webhookId,
      webhookUrl,
      sealedWebhookSecret: secretBox.seal(webhook.secret),
      accountEmail: account.email,
      connectedBy: userId,
      connectedAt: new Date().toISOString(),
    });
  }

  /** Removes a connection's webhook; one already gone (or a key since revoked) is not an error. */
  private async unsubscribe(record: TeamConnectionRecord): Promise<void> {
    const client = this.client(this.options.secretBox.open(record.sealedApiKey));
    await client.webhooks.unsubscribe(record.webhookId).catch((error: unknown) => {
      if (!(error instanceof ApiError && (error.statusCode === 404 || error.statusCode === 401))) throw error;
    });
  }

  webhookUrl(connectionId: string): string {
    return new URL(`imagehub/webhooks/${encodeURIComponent(connectionId)}`, withSlash(this.options.publicUrl))
      .href;
  }

  private client(apiKey: string): ImagehubClient {
    let client = this.clients.get(apiKey);
    if (!client) {
      client = new ImagehubClient({ baseUrl: this.options.apiBaseUrl, apiKey });
      this.clients.set(apiKey, client);
    }
    return client;
  }
}

function withSlash(url: string): string {
  return url.endsWith("/") ? url : `${url}/`;
}
