import { randomBytes } from "node:crypto";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestApi } from "../../../tests/support/test-api.js";
import { until } from "../../../tests/support/until.js";
import { FAKE_OAUTH_APP, FakeSlack } from "./support/fake-slack.js";
import { startImagehub, statusMessageAt } from "./support/imagehub.js";
import type { Workspace } from "./support/slack-requests.js";
import { startTestBot, type TestBot } from "./support/test-bot.js";

const workspaceOf = (teamId: string): Workspace => ({
  teamId,
  channelId: `C${teamId}`,
  userId: `U${teamId}`,
});

/** One deployment, many workspaces: Slack's OAuth installation flow and the durable installation store. */
describe("OAuth distribution", () => {
  let api: TestApi;
  let fake: FakeSlack;
  let testBot: TestBot;
  let env: Record<string, string | undefined>;
  let apiKey: string;

  beforeAll(async () => {
    [api, fake] = await Promise.all([startImagehub(), FakeSlack.start()]);
    ({ apiKey } = await api.createAccount());
    env = {
      SLACK_BOT_TOKEN: undefined,
      SLACK_CLIENT_ID: FAKE_OAUTH_APP.clientId,
      SLACK_CLIENT_SECRET: FAKE_OAUTH_APP.clientSecret,
      SLACK_STATE_SECRET: "a-state-secret-long-enough",
      BOT_ENCRYPTION_KEY: randomBytes(32).toString("base64"),
      IMAGEHUB_BASE_URL: api.baseUrl,
    };
    testBot = await startTestBot(fake, env);
  });
  afterAll(async () => {
    await testBot?.close();
    await fake?.close();
    await api?.close();
  });

  /** What a browser does: open the install page, follow "Add to Slack", come back with Slack's code. */
  async function install(teamId: string): Promise<Response> {
    const page = await fetch(`${testBot.url}/slack/install`);
    const cookie = page.headers.get("set-cookie")?.split(";")[0] ?? "";
    const addToSlack = new URL(/<a href="([^"]+)"/.exec(await page.text())?.[1] ?? "");
    const state = addToSlack.searchParams.get("state") ?? "";
    return fetch(
      `${testBot.url}/slack/oauth_redirect?code=code-for-${teamId}&state=${encodeURIComponent(state)}`,
      {
        headers: { cookie },
      },
    );
  }

  const storedFile = () => readFile(join(testBot.dataDir, "slack-bot.json"), "utf8");

  it("asks for the bot scopes on the install page", async () => {
    const page = await (await fetch(`${testBot.url}/slack/install`)).text();

    const addToSlack = new URL(/<a href="([^"]+)"/.exec(page)?.[1] ?? "");
    expect(addToSlack.searchParams.get("client_id")).toBe(FAKE_OAUTH_APP.clientId);
    expect(addToSlack.searchParams.get("scope")).toBe(FAKE_OAUTH_APP.scopes);
    expect(addToSlack.searchParams.get("redirect_uri")).toBe(`${testBot.url}/slack/oauth_redirect`);
  });

  it("installs into a workspace, exchanging Slack's code for its bot token", async () => {
    const response = await install("T777");

    expect(response.status).toBe(200);
    expect(fake.callsOf("oauth.v2.access").map((call) => call.args.code)).toContain("code-for-T777");
  });

  it("keeps the installation with its token sealed", async () => {
    const file = await storedFile();

    expect(file).toContain('"team:T777"');
    expect(file).not.toContain("xoxb-installed-T777");
  });

  it("refuses a callback whose state is not the browser's", async () => {
    const response = await fetch(`${testBot.url}/slack/oauth_redirect?code=code-for-T666&state=forged`);

    expect(response.status).not.toBe(200);
    expect(await storedFile()).not.toContain('"team:T666"');
  });

  it("answers each workspace with its own bot token", async () => {
    await install("T888");

    for (const teamId of ["T777", "T888"]) {
      const { triggerId } = await testBot.sender.command(workspaceOf(teamId), "/generate", "");
      await until(() => fake.callsOf("views.open").some((call) => call.args.trigger_id === triggerId), {
        what: `the modal in ${teamId}`,
      });
      expect(fake.callsOf("views.open").find((call) => call.args.trigger_id === triggerId)?.token).toBe(
        `xoxb-installed-${teamId}`,
      );
    }
  });

  it("lends the operator's key to no installed workspace: each connects its own", async () => {
    const { responseUrl } = await testBot.sender.command(workspaceOf("T888"), "/generate", "a pine forest");

    await until(() => fake.responsesTo(responseUrl).length > 0, { what: "the answer" });
    expect(fake.responsesTo(responseUrl)[0]?.body.text).toContain("/imagehub connect");
  });

  it("updates a status message from imagehub's webhooks with the installation's token", async () => {
    const workspace = workspaceOf("T888");
    fake.addUser({ id: workspace.userId, isAdmin: true });
    const connected = await testBot.sender.command(workspace, "/imagehub", `connect ${apiKey}`);
    await until(() => fake.responsesTo(connected.responseUrl).length > 0, { what: "the connection" });
    await testBot.sender.command(workspace, "/generate", "a pine forest in the fog");

    const message = await statusMessageAt(fake, workspace.channelId);
    const updates = fake.callsOf("chat.update").filter((call) => call.args.ts === message.ts);
    expect(new Set(updates.map((call) => call.token))).toEqual(new Set(["xoxb-installed-T888"]));
  });

  it("still knows its installations after a restart", async () => {
    await testBot.stop();
    testBot = await startTestBot(fake, { ...env, BOT_DATA_DIR: testBot.dataDir });

    const { triggerId } = await testBot.sender.command(workspaceOf("T777"), "/generate", "");
    await until(() => fake.callsOf("views.open").some((call) => call.args.trigger_id === triggerId), {
      what: "the modal",
    });
    expect(fake.callsOf("views.open").find((call) => call.args.trigger_id === triggerId)?.token).toBe(
      "xoxb-installed-T777",
    );
  });

  it("forgets a workspace that uninstalls the app", async () => {
    const response = await testBot.sender.event("T777", { type: "app_uninstalled" });

    expect(response.status).toBe(200);
    await until(async () => !(await storedFile()).includes('"team:T777"'), {
      what: "the installation removed",
    });
    expect(await storedFile()).toContain('"team:T888"');
  });

  it("tells a workspace whose installation is gone that an admin installs it again", async () => {
    const { responseUrl } = await testBot.sender.command(workspaceOf("T777"), "/imagehub", "status");

    await until(() => fake.responsesTo(responseUrl).length > 0, { what: "the answer" });
    expect(fake.responsesTo(responseUrl)[0]?.body.text).toContain("not installed in this workspace any more");
  });
});
