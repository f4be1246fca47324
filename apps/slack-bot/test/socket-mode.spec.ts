import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { until } from "../../../tests/support/until.js";
import { FakeSlack } from "./support/fake-slack.js";
import { BOT_TOKEN, startTestBot, type TestBot } from "./support/test-bot.js";

const APP_TOKEN = "xapp-1-test";

function aSlashCommand(text: string, fake: FakeSlack): Record<string, unknown> {
  return {
    token: "deprecated-verification-token",
    team_id: "T100",
    team_domain: "fake",
    channel_id: "C100",
    channel_name: "general",
    user_id: "U100",
    user_name: "someone",
    command: "/generate",
    text,
    api_app_id: "AFAKE",
    is_enterprise_install: "false",
    response_url: fake.responseUrl(),
    trigger_id: fake.triggerId(),
  };
}

/** A bot without a public address: Slack's requests over a WebSocket, imagehub's webhooks still over HTTP. */
describe("Socket Mode", () => {
  let fake: FakeSlack;
  let testBot: TestBot;

  beforeAll(async () => {
    fake = await FakeSlack.start();
    fake.addBotToken(BOT_TOKEN, "T100");
    fake.enableSocketMode(APP_TOKEN);
    testBot = await startTestBot(fake, { SLACK_APP_TOKEN: APP_TOKEN, SLACK_SIGNING_SECRET: undefined });
  });
  afterAll(async () => {
    await testBot?.close();
    await fake?.close();
  });

  it("connects to Slack with the app token", () => {
    expect(fake.callsOf("apps.connections.open").map((call) => call.token)).toEqual([APP_TOKEN]);
    expect(fake.socketConnections).toBe(1);
  });

  it("acknowledges a slash command over the socket, with its answer", async () => {
    const ack = await fake.sendEnvelope("slash_commands", aSlashCommand("a fox --chaos", fake));

    expect(ack).toMatchObject({
      response_type: "ephemeral",
      text: expect.stringContaining("--chaos: give it a value"),
    });
  });

  it("opens the modal for a command that came over the socket", async () => {
    const command = aSlashCommand("", fake);

    await fake.sendEnvelope("slash_commands", command);

    await until(
      () => fake.callsOf("views.open").some((call) => call.args.trigger_id === command.trigger_id),
      {
        what: "views.open",
      },
    );
  });

  it("still receives imagehub's webhooks over HTTP on BOT_PORT", async () => {
    const deliver = () =>
      fetch(`${testBot.url}/imagehub/webhooks/no-such-connection`, { method: "POST", body: "{}" }).then(
        (response) => response.status,
        () => undefined,
      );

    // 410: imagehub stops delivering to a connection the bot does not know.
    await until(async () => (await deliver()) === 410, { what: "the webhook receiver" });
    expect((await fetch(`${testBot.url}/slack/events`, { method: "POST", body: "{}" })).status).toBe(404);
  });

  it("answers 400 to a webhook path with a bad percent-encoding, and keeps serving", async () => {
    const bad = await fetch(`${testBot.url}/imagehub/webhooks/%E0%A4%A`, { method: "POST", body: "{}" });

    expect(bad.status).toBe(400);
    const next = await fetch(`${testBot.url}/imagehub/webhooks/gone`, { method: "POST", body: "{}" });
    expect(next.status).toBe(410);
    expect(testBot.errorLines()).toEqual([]);
  });
});
