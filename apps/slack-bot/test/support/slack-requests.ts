import { createHmac } from "node:crypto";
import type { FakeMessage, FakeSlack, SlackBlock } from "./fake-slack.js";

export interface Workspace {
  teamId: string;
  channelId: string;
  userId: string;
}

export interface SigningOptions {
  /** Seconds since the epoch; now by default. */
  timestamp?: number;
  /** Signs with another secret than the app's. */
  secret?: string;
}

/** Slack's v0 request signature: HMAC-SHA256 of `v0:{timestamp}:{body}` with the signing secret. */
export function slackSignature(secret: string, timestamp: number, body: string): string {
  return `v0=${createHmac("sha256", secret).update(`v0:${timestamp}:${body}`).digest("hex")}`;
}

/**
 * Sends the bot what Slack sends it (https://docs.slack.dev/authentication/verifying-requests-from-slack):
 * slash commands, interactions and events, with the documented bodies and signed headers. Answers also
 * the response_url each request carried, where the bot's later ephemeral answers arrive.
 */
export class SlackSender {
  constructor(
    private readonly botUrl: string,
    private readonly signingSecret: string,
    private readonly fake: FakeSlack,
  ) {}

  /**
   * POSTs a body to /slack/events, signed. An answer later than Slack's deadline is recorded in the fake's
   * lateAcks, as Slack would have shown the person a timeout.
   */
  async send(
    body: string,
    contentType: string,
    { timestamp, secret }: SigningOptions = {},
  ): Promise<Response> {
    const at = timestamp ?? Math.floor(Date.now() / 1000);
    const sentAt = Date.now();
    const response = await fetch(`${this.botUrl}/slack/events`, {
      method: "POST",
      headers: {
        "content-type": contentType,
        "x-slack-request-timestamp": String(at),
        "x-slack-signature": slackSignature(secret ?? this.signingSecret, at, body),
      },
      body,
    });
    if (Date.now() - sentAt > this.fake.ackDeadlineMs) this.fake.lateAcks.push(kindOf(body));
    return response;
  }

  async command(
    workspace: Workspace,
    command: string,
    text: string,
    signing?: SigningOptions,
  ): Promise<{ response: Response; responseUrl: string; triggerId: string }> {
    const responseUrl = this.fake.responseUrl();
    const triggerId = this.fake.triggerId();
    const body = new URLSearchParams({
      token: "deprecated-verification-token",
      team_id: workspace.teamId,
      team_domain: "fake",
      channel_id: workspace.channelId,
      channel_name: "general",
      user_id: workspace.userId,
      user_name: "someone",
      command,
      // Slack escapes &, < and > in what a person typed (https://docs.slack.dev/messaging/formatting-message-text#escaping).
      text: text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;"),
      api_app_id: "AFAKE",
      is_enterprise_install: "false",
      response_url: responseUrl,
      trigger_id: triggerId,
    }).toString();
    return {
      response: await this.send(body, "application/x-www-form-urlencoded", signing),
      responseUrl,
      triggerId,
    };
  }

  /** A click on a button of a message the bot posted. */
  async click(
    workspace: Workspace,
    message: FakeMessage,
    actionId: string,
  ): Promise<{ response: Response; responseUrl: string }> {
    const button = message.blocks
      .flatMap((block: SlackBlock) => block.elements ?? [])
      .find((element) => element.action_id === actionId);
    if (!button) throw new Error(`no button ${actionId} on the message`);
    const responseUrl = this.fake.responseUrl();
    const payload = {
      type: "block_actions",
      user: { id: workspace.userId, username: "someone", name: "someone", team_id: workspace.teamId },
      api_app_id: "AFAKE",
      token: "deprecated-verification-token",
      container: {
        type: "message",
        message_ts: message.ts,
        channel_id: message.channel,
        is_ephemeral: false,
      },
      trigger_id: this.fake.triggerId(),
      team: { id: workspace.teamId, domain: "fake" },
      enterprise: null,
      is_enterprise_install: false,
      channel: { id: message.channel, name: "general" },
      message: { type: "message", ts: message.ts, text: message.text, blocks: message.blocks },
      response_url: responseUrl,
      actions: [
        {
          type: "button",
          action_id: actionId,
          block_id: "imagehub-actions",
          text: { type: "plain_text", text: button.text?.text ?? "" },
          value: button.value,
          action_ts: `${Date.now() / 1000}`,
        },
      ],
    };
    return { response: await this.sendPayload(payload), responseUrl };
  }

  /** Submits a modal the bot opened (as views.open received it) with the values given per block. */
  submitModal(
    workspace: Workspace,
    view: { callback_id: string; private_metadata: string },
    values: Record<string, Record<string, unknown>>,
  ): Promise<Response> {
    const payload = {
      type: "view_submission",
      team: { id: workspace.teamId, domain: "fake" },
      user: { id: workspace.userId, username: "someone", name: "someone", team_id: workspace.teamId },
      api_app_id: "AFAKE",
      token: "deprecated-verification-token",
      trigger_id: this.fake.triggerId(),
      is_enterprise_install: false,
      enterprise: null,
      view: {
        id: "VMODAL",
        team_id: workspace.teamId,
        type: "modal",
        callback_id: view.callback_id,
        private_metadata: view.private_metadata,
        state: {
          values: Object.fromEntries(
            Object.entries(values).map(([blockId, value]) => [blockId, { value: { ...value } }]),
          ),
        },
        hash: "1.hash",
        title: { type: "plain_text", text: "Generate images" },
        blocks: [],
        close: null,
        submit: null,
        root_view_id: "VMODAL",
        previous_view_id: null,
        app_id: "AFAKE",
        bot_id: "BFAKE",
        clear_on_close: false,
        notify_on_close: false,
      },
      response_urls: [],
    };
    return this.sendPayload(payload);
  }

  /** An Events API delivery. */
  event(teamId: string, event: Record<string, unknown>): Promise<Response> {
    const body = JSON.stringify({
      token: "deprecated-verification-token",
      team_id: teamId,
      api_app_id: "AFAKE",
      event: { event_ts: `${Date.now() / 1000}`, ...event },
      type: "event_callback",
      event_id: `Ev${Date.now()}`,
      event_time: Math.floor(Date.now() / 1000),
      authorizations: [
        { team_id: teamId, user_id: `UBOT${teamId}`, is_bot: true, is_enterprise_install: false },
      ],
    });
    return this.send(body, "application/json");
  }

  private sendPayload(payload: unknown): Promise<Response> {
    const body = new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
    return this.send(body, "application/x-www-form-urlencoded");
  }
}

/** What a request to the app is, for the record of late answers: its command, or its payload's type. */
function kindOf(body: string): string {
  const form = new URLSearchParams(body);
  const payload = form.get("payload");
  if (payload !== null) return String((JSON.parse(payload) as { type?: string }).type);
  return form.get("command") ?? "event";
}
