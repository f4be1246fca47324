import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { until } from "../../../tests/support/until.js";
import { FakeSlack } from "./support/fake-slack.js";
import type { Workspace } from "./support/slack-requests.js";
import { BOT_TOKEN, startTestBot, type TestBot } from "./support/test-bot.js";

const workspace: Workspace = { teamId: "T001", channelId: "C001", userId: "U001" };

/** The bot with no imagehub key at all: these requests never reach imagehub. */
describe("Slack requests to the bot", () => {
  let fake: FakeSlack;
  let testBot: TestBot;

  beforeAll(async () => {
    fake = await FakeSlack.start();
    fake.addBotToken(BOT_TOKEN, workspace.teamId);
    testBot = await startTestBot(fake);
  });
  afterAll(async () => {
    await testBot?.close();
    await fake?.close();
  });

  const helpBody = () =>
    new URLSearchParams({
      team_id: workspace.teamId,
      channel_id: workspace.channelId,
      user_id: workspace.userId,
      command: "/imagehub",
      text: "help",
      response_url: fake.responseUrl(),
      trigger_id: "1.trigger",
    }).toString();

  it("checks the bot token with auth.test when it starts", () => {
    expect(fake.callsOf("auth.test").map((call) => call.token)).toContain(BOT_TOKEN);
  });

  it("answers a correctly signed slash command", async () => {
    const { response, responseUrl } = await testBot.sender.command(workspace, "/imagehub", "help");

    expect(response.status).toBe(200);
    await until(() => fake.responsesTo(responseUrl).length > 0, { what: "the help" });
    expect(fake.responsesTo(responseUrl)[0]?.body).toMatchObject({
      response_type: "ephemeral",
      text: expect.stringContaining("/imagehub connect"),
    });
  });

  it("refuses a request signed with another secret", async () => {
    const response = await testBot.sender.send(helpBody(), "application/x-www-form-urlencoded", {
      secret: "not-the-signing-secret",
    });

    expect(response.status).toBe(401);
  });

  it("refuses a request whose timestamp is more than 5 minutes old", async () => {
    const tenMinutesAgo = Math.floor(Date.now() / 1000) - 600;
    const response = await testBot.sender.send(helpBody(), "application/x-www-form-urlencoded", {
      timestamp: tenMinutesAgo,
    });

    expect(response.status).toBe(401);
  });

  it("answers bad flags at once, ephemerally, naming each problem, and posts nothing", async () => {
    const { response } = await testBot.sender.command(
      workspace,
      "/generate",
      "a fox --chaos --format 3:1 --colour red",
    );

    expect(response.status).toBe(200);
    const answer = (await response.json()) as { response_type: string; text: string };
    expect(answer.response_type).toBe("ephemeral");
    expect(answer.text).toContain("--chaos: give it a value");
    expect(answer.text).toContain("--colour: unknown flag");
    expect(fake.callsOf("chat.postMessage")).toHaveLength(0);
  });

  it("answers a value the API refuses ephemerally, in the words of the flag", async () => {
    const { responseUrl } = await testBot.sender.command(workspace, "/generate", "a fox --format 3:1");

    await until(() => fake.responsesTo(responseUrl).length > 0, { what: "the refusal" });
    expect(fake.responsesTo(responseUrl)[0]?.body.text).toMatch(/Nothing was created\. format: /);
    expect(fake.callsOf("chat.postMessage")).toHaveLength(0);
  });

  it("tells a workspace without a key how to connect one, and posts nothing", async () => {
    const { responseUrl } = await testBot.sender.command(workspace, "/generate", "a red fox in the snow");

    await until(() => fake.responsesTo(responseUrl).length > 0, { what: "the refusal" });
    expect(fake.responsesTo(responseUrl)[0]?.body.text).toContain("/imagehub connect");
    expect(fake.callsOf("chat.postMessage")).toHaveLength(0);
  });

  it("answers imagehub's webhook route a clean 4xx for unknown connections and bad percent-encoding", async () => {
    const answers = await Promise.all(
      ["constructor", "__proto__", "%E0%A4%A", "%"].map((connection) =>
        fetch(`${testBot.url}/imagehub/webhooks/${connection}`, { method: "POST", body: "{}" }),
      ),
    );

    expect(answers.map((answer) => answer.status)).toEqual([410, 410, 400, 400]);
    expect(testBot.errorLines()).toEqual([]);
  });

  it("opens the modal for /generate without text, remembering the channel", async () => {
    const { response, triggerId } = await testBot.sender.command(workspace, "/generate", "");

    expect(response.status).toBe(200);
    await until(() => fake.callsOf("views.open").length > 0, { what: "views.open" });
    const [opened] = fake.callsOf("views.open");
    expect(opened?.args.trigger_id).toBe(triggerId);
    expect(opened?.args.view).toMatchObject({
      type: "modal",
      callback_id: "imagehub-generate",
      private_metadata: JSON.stringify({ channelId: workspace.channelId }),
    });
  });
});
