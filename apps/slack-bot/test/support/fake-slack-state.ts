import { type Budget, RateBudgets } from "../../../../tests/support/rate-budget.js";
import { BLOCK_KIT_LIMITS, blockKitErrors } from "./slack-block-kit.js";
import {
  DOCUMENTED_BUDGETS,
  FAKE_OAUTH_APP,
  type FakeFile,
  type FakeMessage,
  type FakeUser,
  POST_MESSAGE_BUDGET,
  type ResponseUrlPost,
  type SlackBlock,
  type SlackCall,
  TRIGGER_LIFETIME_MS,
} from "./slack-wire.js";

/**
 * What the fake Slack holds: its workspaces' tokens, channels, messages and files, and what the methods that
 * change them do; the reading helpers tests use. The HTTP routes build on it.
 */
export abstract class FakeSlackState {
  readonly calls: SlackCall[] = [];

  readonly messages = new Map<string, FakeMessage>();

  readonly files = new Map<string, FakeFile>();

  readonly responses: ResponseUrlPost[] = [];

  readonly users = new Map<string, FakeUser>();

  /** Channels the bot is not in: chat.postMessage there answers not_in_channel. */
  readonly closedChannels = new Set<string>();

  /**
   * Public channels the bot posts in through chat:write.public without having joined them: messages and
   * their updates go through, but shared files and ephemeral messages answer not_in_channel.
   */
  readonly channelsNotJoined = new Set<string>();

  /**
   * Private channels the bot is not in, or was removed from: Slack does not show them to it, and every
   * method naming them answers channel_not_found.
   */
  readonly hiddenChannels = new Set<string>();

  /** Members of user groups, by group id (usergroups.users.list). */
  readonly userGroups = new Map<string, string[]>();

  /** The @handle of each user group (what a person types, and what Slack sends with should_escape false). */
  readonly userGroupHandles = new Map<string, string>();

  /**
   * Channels whose posting permissions a workspace admin keeps from apps: posting and updating there answer
   * restricted_action ("A workspace preference prevents the authenticated user from posting").
   */
  readonly restrictedChannels = new Set<string>();

  /** Archived channels: posting, updating and sharing there answer is_archived. */
  readonly archivedChannels = new Set<string>();

  /** Tokens revoked (the app uninstalled, or the token revoked): every call answers token_revoked. */
  readonly revokedTokens = new Set<string>();

  /** Who is in a channel, where a test says so: an ephemeral message to anyone else answers user_not_in_channel. */
  readonly channelMembers = new Map<string, Set<string>>();

  /**
   * The next image_url downloads that fail, as Slack's intermittently do: the message is refused with
   * invalid_blocks, "downloading image failed".
   */
  failingImageDownloads = 0;

  /** The image_urls Slack fetched, with the HTTP status each answered (0: no answer). */
  readonly imageFetches: { url: string; status: number }[] = [];

  /** Workspaces on Slack's free plan, which has no user groups: usergroups methods answer plan_upgrade_required. */
  readonly workspacesWithoutUserGroups = new Set<string>();

  /**
   * One call in this many of chat.postMessage and chat.update answers HTTP 503, before doing anything, as
   * Slack's intermittent server errors do; undefined: none.
   */
  serverErrorEvery: number | undefined;

  /** The 503s answered. */
  serverErrors = 0;

  private messageCalls = 0;

  /** The error the next call of a method answers, once. */
  readonly nextErrors = new Map<string, string>();

  /** Per-method budgets per workspace; a test tightens or lifts them. */
  readonly methodBudgets: Record<string, Budget | undefined> = { ...DOCUMENTED_BUDGETS };

  /** chat.postMessage's budget per channel. */
  postMessageBudget: Budget | undefined = POST_MESSAGE_BUDGET;

  /** Every 429 `ratelimited` answered, by method, workspace (and channel). */
  readonly budgets = new RateBudgets();

  /** Every `invalid_blocks` and `msg_too_long` answered, with its method: a correct bot causes none. */
  readonly refusedLayouts: { method: string; error: string; errors: string[] }[] = [];

  /**
   * Slack waits 3 s for the app's HTTP answer to a command, action or view submission, then shows the
   * person "operation_timeout" and drops the answer (https://docs.slack.dev/interactivity/handling-user-interaction#acknowledgment_response).
   */
  ackDeadlineMs = 3_000;

  /** Requests of Slack the bot answered after the deadline, by their body's kind. */
  readonly lateAcks: string[] = [];

  protected readonly triggers = new Map<string, { issuedAt: number; isUsed: boolean }>();

  protected readonly responseUrls = new Map<string, { issuedAt: number; uses: number }>();

  protected readonly tokens = new Map<string, { teamId: string; botUserId: string; scopes: string[] }>();

  protected sequence = 0;

  /** A bot token this fake accepts, for a workspace, granted the scopes the app asks for unless told others. */
  addBotToken(token: string, teamId: string, scopes = FAKE_OAUTH_APP.scopes.split(",")): void {
    this.tokens.set(token, { teamId, botUserId: `UBOT${teamId}`, scopes });
  }

  addUser(user: FakeUser): void {
    this.users.set(user.id, user);
  }

  /** A fresh response_url, as Slack puts one in each command and button payload. */
  responseUrl(): string {
    this.sequence += 1;
    const url = `${this.url}/responses/${this.sequence}`;
    this.responseUrls.set(url, { issuedAt: Date.now(), uses: 0 });
    return url;
  }

  /** A fresh trigger_id, as Slack puts one in each command, click and submission: views.open takes it once, for 3 s. */
  triggerId(): string {
    const id = `${this.nextSequence()}.${Date.now()}.trigger`;
    this.triggers.set(id, { issuedAt: Date.now(), isUsed: false });
    return id;
  }

  /** The bot is removed from a private channel (or never was in it): Slack hides the channel from it. */
  removeBotFrom(channel: string): void {
    this.hiddenChannels.add(channel);
  }

  /** Someone deletes a message: updates of it answer message_not_found. */
  deleteMessage(channel: string, ts: string): void {
    const message = this.messages.get(`${channel}/${ts}`);
    if (message) message.isDeleted = true;
  }

  /** Whether this call is one answered 503 (see serverErrorEvery). */
  protected isServerErrorDue({ method }: SlackCall): boolean {
    if (method !== "chat.postMessage" && method !== "chat.update") return false;
    this.messageCalls += 1;
    if (this.serverErrorEvery === undefined || this.messageCalls % this.serverErrorEvery !== 0) return false;
    this.serverErrors += 1;
    return true;
  }

  /** The `ratelimited` answers, in all or for one method. */
  rateLimitedCalls(method = ""): number {
    return this.budgets.refusals(method);
  }

  callsOf(method: string): SlackCall[] {
    return this.calls.filter((call) => call.method === method);
  }

  messagesIn(channel: string): FakeMessage[] {
    return [...this.messages.values()].filter((message) => message.channel === channel && !message.isDeleted);
  }

  responsesTo(responseUrl: string): ResponseUrlPost[] {
    return this.responses.filter((response) => response.responseUrl === responseUrl);
  }

  /** Slack's refusal of a message's text and blocks (or a modal's blocks), if any. */
  protected layoutRefusal(
    method: string,
    message: { text?: unknown; blocks?: unknown },
    surface: "message" | "modal" = "message",
  ): Record<string, unknown> | undefined {
    const errors = blockKitErrors(message.blocks, surface);
    const isTextTooLong =
      typeof message.text === "string" && [...message.text].length > BLOCK_KIT_LIMITS.messageText;
    if (errors.length === 0 && !isTextTooLong) return undefined;
    const error = errors.length > 0 ? "invalid_blocks" : "msg_too_long";
    this.refusedLayouts.push({ method, error, errors });
    return {
      ok: false,
      error,
      ...(errors.length > 0 && {
        errors,
        response_metadata: { messages: errors.map((line) => `[ERROR] ${line}`) },
      }),
    };
  }

  protected openView(args: Record<string, unknown>): Record<string, unknown> {
    const trigger = this.triggers.get(String(args.trigger_id));
    if (!trigger) return { ok: false, error: "invalid_trigger_id" };
    if (Date.now() - trigger.issuedAt > TRIGGER_LIFETIME_MS)
      return { ok: false, error: "expired_trigger_id" };
    if (trigger.isUsed) return { ok: false, error: "trigger_exchanged" };
    const view = args.view as { blocks?: unknown };
    const refusal = this.layoutRefusal("views.open", view, "modal");
    if (refusal) return refusal;
    trigger.isUsed = true;
    return { ok: true, view: { ...view, id: `V${this.nextSequence()}` } };
  }

  /**
   * An image block may show a Slack file by its id when whoever posts may see it
   * (https://docs.slack.dev/reference/block-kit/composition-objects/slack-file-object): here, a file shared in
   * that channel; anything else is refused as Slack does, with invalid_blocks.
   */
  protected invalidSlackFile(args: Record<string, unknown>): Record<string, unknown> | undefined {
    const blocks = (args.blocks ?? []) as SlackBlock[];
    for (const [index, block] of blocks.entries()) {
      const fileId = (block.slack_file as { id?: string } | undefined)?.id;
      if (block.type !== "image" || fileId === undefined) continue;
      if (this.files.get(fileId)?.channelId !== String(args.channel)) {
        return {
          ok: false,
          error: "invalid_blocks",
          errors: [`invalid slack file [json-pointer:/blocks/${index}/slack_file]`],
        };
      }
    }
    return undefined;
  }

  protected postMessage(
    args: Record<string, unknown>,
    identity: { teamId: string; botUserId: string },
  ): Record<string, unknown> {
    // A user id as the channel posts in the app's conversation with that person.
    const target = String(args.channel);
    const channel = /^[UW]/.test(target) ? `D${identity.botUserId}${target}` : target;
    if (this.closedChannels.has(channel)) return { ok: false, error: "not_in_channel" };
    const ts = this.nextTs();
    if (args.text === undefined && args.blocks === undefined) return { ok: false, error: "no_text" };
    const content = { text: String(args.text ?? ""), blocks: (args.blocks ?? []) as SlackBlock[] };
    this.messages.set(`${channel}/${ts}`, {
      channel,
      ts,
      ...content,
      versions: [content],
      isDeleted: false,
      teamId: identity.teamId,
      postedBy: identity.botUserId,
    });
    return { ok: true, channel, ts, message: { ts, ...content } };
  }

  /**
   * A message of another workspace is one this token cannot see (channel_not_found); one of its own
   * workspace posted by someone else, one it may not update (cant_update_message).
   */
  protected updateMessage(
    args: Record<string, unknown>,
    identity: { teamId: string; botUserId: string },
  ): Record<string, unknown> {
    const message = this.messages.get(`${args.channel}/${args.ts}`);
    if (message && message.teamId !== identity.teamId) return { ok: false, error: "channel_not_found" };
    if (!message || message.isDeleted) return { ok: false, error: "message_not_found" };
    if (message.postedBy !== identity.botUserId) return { ok: false, error: "cant_update_message" };
    const content = { text: String(args.text ?? ""), blocks: (args.blocks ?? []) as SlackBlock[] };
    Object.assign(message, content);
    message.versions.push(content);
    return { ok: true, channel: message.channel, ts: message.ts, text: content.text };
  }

  /** The bot's conversation with a person (its Messages tab), where posting to their user id goes. */
  directMessagesTo(userId: string, teamId?: string): FakeMessage[] {
    return [...this.messages.values()].filter(
      (message) =>
        message.channel.startsWith("D") &&
        message.channel.endsWith(userId) &&
        (teamId === undefined || message.teamId === teamId),
    );
  }

  protected completeUpload(args: Record<string, unknown>): Record<string, unknown> {
    if (this.channelsNotJoined.has(String(args.channel_id))) return { ok: false, error: "not_in_channel" };
    const listed = args.files as { id: string; title?: string }[];
    const files = listed.map(({ id }) => this.files.get(id));
    if (files.some((file) => !file?.bytes)) return { ok: false, error: "file_not_found" };
    for (const file of files as FakeFile[]) {
      if (args.channel_id !== undefined) file.channelId = String(args.channel_id);
      if (args.thread_ts !== undefined) file.threadTs = String(args.thread_ts);
    }
    return { ok: true, files: listed.map(({ id, title }) => ({ id, title })) };
  }

  protected nextSequence(): number {
    this.sequence += 1;
    return this.sequence;
  }

  protected nextTs(): string {
    return `${1_700_000_000 + this.nextSequence()}.000100`;
  }

  /** Where the fake listens. */
  abstract readonly url: string;
}
