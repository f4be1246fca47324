import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { ImagehubClient } from "@imagehub/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { until } from "../../../tests/support/until.js";
import { imagehubAndSlack, imagehubClient, statusMessageAt } from "./support/imagehub.js";
import type { Workspace } from "./support/slack-requests.js";
import { startTestBot, type TestBot } from "./support/test-bot.js";

const TEAM = "T050";
const as = (userId: string): Workspace => ({ teamId: TEAM, channelId: "C050", userId });
const admin = as("UADMIN");
const owner = as("UOWNER");
const member = as("UMEMBER");

/** A workspace connecting its own imagehub account: the bot has no default key. */
describe("/imagehub connect, status, usage, settings and disconnect", () => {
  const { api, fake } = imagehubAndSlack(TEAM);
  let testBot: TestBot;
  let apiKey: string;
  let imagehub: ImagehubClient;

  beforeAll(async () => {
    fake().addUser({ id: admin.userId, isAdmin: true });
    fake().addUser({ id: owner.userId, isOwner: true });
    fake().addUser({ id: member.userId });
    ({ apiKey } = await api().createAccount());
    imagehub = imagehubClient(api(), apiKey);
    testBot = await startTestBot(fake(), { IMAGEHUB_BASE_URL: api().baseUrl });
  });
  afterAll(() => testBot?.close());

  /** Runs `/imagehub <text>` and answers what the bot told the user. */
  async function imagehubCommand(workspace: Workspace, text: string): Promise<string> {
    const { response, responseUrl } = await testBot.sender.command(workspace, "/imagehub", text);
    expect(response.status).toBe(200);
    await until(() => fake().responsesTo(responseUrl).length > 0, {
      what: `the answer to /imagehub ${text}`,
    });
    const [answer] = fake().responsesTo(responseUrl);
    expect(answer?.body.response_type).toBe("ephemeral");
    return answer?.body.text ?? "";
  }

  const webhookUrls = async () => (await imagehub.webhooks.list()).webhooks.map((webhook) => webhook.url);

  it("says a workspace without a key is not connected", async () => {
    expect(await imagehubCommand(member, "status")).toContain("not connected to imagehub yet");
  });

  it("lets only workspace admins and owners connect", async () => {
    expect(await imagehubCommand(member, `connect ${apiKey}`)).toContain("Only workspace admins and owners");
    expect(await webhookUrls()).toEqual([]);
  });

  it("refuses a key imagehub does not know", async () => {
    expect(await imagehubCommand(admin, "connect ih_not_a_real_key")).toContain("imagehub refused");
  });

  it("connects with an admin's key and subscribes the bot's webhook for it", async () => {
    const account = await imagehub.keys.check();

    const answer = await imagehubCommand(admin, `connect ${apiKey}`);

    expect(answer).toContain(`now uses the imagehub account *${account.email}*`);
    expect(answer).not.toContain(apiKey);
    expect(await webhookUrls()).toEqual([`${testBot.url}/imagehub/webhooks/${TEAM}`]);
  });

  it("keeps the key and the webhook's secret sealed at rest", async () => {
    const file = await readFile(join(testBot.dataDir, "slack-bot.json"), "utf8");

    expect(file).toContain(`"connectionId": "${TEAM}"`);
    expect(file).not.toContain(apiKey);
    expect(file).not.toContain("whsec_");
  });

  it("shows the account and its credits", async () => {
    const answer = await imagehubCommand(member, "status");

    expect(answer).toContain("This workspace uses the imagehub account");
    expect(answer).toContain("generations left: 5 · purchases left: 10");
  });

  it("generates with the connected key, its events arriving through the connection's webhook", async () => {
    await testBot.sender.command(member, "/generate", "a mountain lake");

    await statusMessageAt(fake(), member.channelId);
    expect((await imagehub.generations.find({ tag: `slack:${TEAM}` })).filteredResults).toBe(1);
  });

  it("holds each person to the daily quota an admin sets, and tells each their usage alone", async () => {
    expect(await imagehubCommand(member, "settings quota 1")).toContain("Only workspace admins and owners");
    expect(await imagehubCommand(admin, "settings quota 1")).toContain(
      "Generations per person: 1 generation a day each (UTC).",
    );
    const inItsChannel = { ...owner, channelId: "C051" };
    await testBot.sender.command(inItsChannel, "/generate", "a quota of one");
    await statusMessageAt(fake(), inItsChannel.channelId);

    const { responseUrl } = await testBot.sender.command(inItsChannel, "/generate", "one too many");
    await until(() => fake().responsesTo(responseUrl).length > 0, { what: "the refusal" });
    expect(fake().responsesTo(responseUrl)[0]?.body.text).toContain(
      "You have started your 1 generation for today (this team's daily quota per person)",
    );
    expect(await imagehubCommand(owner, "usage")).toContain(
      "Today (UTC) you started 1 generation of the 1 this team allows each person a day.",
    );
    expect(await imagehubCommand(admin, "settings quota none")).toContain(
      "Generations per person: no daily quota.",
    );
  });

  it("lets only admins and owners disconnect", async () => {
    expect(await imagehubCommand(member, "disconnect")).toContain("Only workspace admins and owners");
    expect(await webhookUrls()).toHaveLength(1);
  });

  it("disconnects, removing the webhook and the key", async () => {
    expect(await imagehubCommand(owner, "disconnect")).toContain("key and its webhook are removed");
    expect(await webhookUrls()).toEqual([]);
    expect(await imagehubCommand(member, "status")).toContain("not connected to imagehub yet");
  });
});
