import { webApi } from "@slack/bolt";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isInUserGroup } from "../src/workspace-members.js";
import { FakeSlack } from "./support/fake-slack.js";

const TEAM = "T700";
const TOKEN = "xoxb-members";

describe("isInUserGroup", () => {
  let fake: FakeSlack;
  let slack: webApi.WebClient;

  beforeAll(async () => {
    fake = await FakeSlack.start();
    fake.addBotToken(TOKEN, TEAM);
    slack = new webApi.WebClient(TOKEN, { slackApiUrl: fake.apiUrl });
    fake.userGroups.set("S0DESIGN", ["U1"]);
  });
  afterAll(() => fake?.close());

  it("answers whether someone is in the group", async () => {
    expect([
      await isInUserGroup(slack, "S0DESIGN", "U1"),
      await isInUserGroup(slack, "S0DESIGN", "U2"),
    ]).toEqual([true, false]);
  });

  it("counts nobody in a group deleted since the admins chose it (no_such_subteam)", async () => {
    expect(await isInUserGroup(slack, "S0DELETED", "U1")).toBe(false);
    expect(fake.callsOf("usergroups.users.list").at(-1)?.error).toBe("no_such_subteam");
  });

  it("counts nobody in a group of a workspace whose plan has none (plan_upgrade_required)", async () => {
    fake.workspacesWithoutUserGroups.add(TEAM);
    try {
      expect(await isInUserGroup(slack, "S0DESIGN", "U1")).toBe(false);
      expect(fake.callsOf("usergroups.users.list").at(-1)?.error).toBe("plan_upgrade_required");
    } finally {
      fake.workspacesWithoutUserGroups.delete(TEAM);
    }
  });
});
