import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { JsonFileStore, SecretBox } from "@imagehub/chat-core";
import type { Installation } from "@slack/bolt";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type InstallationRecord, SealedInstallationStore } from "./sealed-installation-store.js";

const KEY = Buffer.alloc(32, 7).toString("base64");

function anInstallation(teamId: string, overrides: Partial<Installation> = {}): Installation {
  return {
    team: { id: teamId, name: `Team ${teamId}` },
    enterprise: undefined,
    user: { id: "U1", token: undefined, scopes: undefined },
    bot: { token: `xoxb-secret-${teamId}`, scopes: ["commands"], id: "B1", userId: "UBOT" },
    isEnterpriseInstall: false,
    authVersion: "v2",
    ...overrides,
  } as Installation;
}

const teamQuery = (teamId: string) => ({ teamId, enterpriseId: undefined, isEnterpriseInstall: false });

describe("SealedInstallationStore", () => {
  let dir: string;
  let path: string;
  const open = async () => {
    const store = await JsonFileStore.open(path);
    return new SealedInstallationStore(
      store.collection<InstallationRecord>("installations"),
      new SecretBox(KEY),
    );
  };

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "installations-"));
    path = join(dir, "slack-bot.json");
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it("gives back what it stored", async () => {
    const installations = await open();
    await installations.storeInstallation(anInstallation("T1"));

    expect(await installations.fetchInstallation(teamQuery("T1"))).toEqual(anInstallation("T1"));
  });

  it("keeps installations across a restart", async () => {
    await (await open()).storeInstallation(anInstallation("T1"));

    expect((await (await open()).fetchInstallation(teamQuery("T1"))).bot?.token).toBe("xoxb-secret-T1");
  });

  it("keeps no token in clear at rest", async () => {
    await (await open()).storeInstallation(anInstallation("T1"));

    const file = await readFile(path, "utf8");
    expect(file).not.toContain("xoxb-secret-T1");
    expect(file).toContain('"teamId": "T1"');
  });

  it("keeps one installation per workspace, the newest", async () => {
    const installations = await open();
    await installations.storeInstallation(anInstallation("T1"));
    await installations.storeInstallation(
      anInstallation("T1", { bot: { token: "xoxb-new", scopes: [], id: "B1", userId: "UBOT" } }),
    );
    await installations.storeInstallation(anInstallation("T2"));

    expect((await installations.fetchInstallation(teamQuery("T1"))).bot?.token).toBe("xoxb-new");
    expect((await installations.fetchInstallation(teamQuery("T2"))).bot?.token).toBe("xoxb-secret-T2");
  });

  it("finds an org-wide installation by its enterprise", async () => {
    const installations = await open();
    await installations.storeInstallation(
      anInstallation("T1", {
        team: undefined,
        enterprise: { id: "E1" },
        isEnterpriseInstall: true,
      } as Partial<Installation>),
    );

    const found = await installations.fetchInstallation({
      teamId: undefined,
      enterpriseId: "E1",
      isEnterpriseInstall: true,
    });
    expect(found.enterprise?.id).toBe("E1");
  });

  it("refuses a workspace it does not know", async () => {
    await expect((await open()).fetchInstallation(teamQuery("T9"))).rejects.toThrow(
      /not installed in team:T9/,
    );
  });

  it("forgets a deleted installation", async () => {
    const installations = await open();
    await installations.storeInstallation(anInstallation("T1"));
    await installations.deleteInstallation(teamQuery("T1"));

    await expect(installations.fetchInstallation(teamQuery("T1"))).rejects.toThrow(/not installed/);
  });

  it("does not open with another key", async () => {
    await (await open()).storeInstallation(anInstallation("T1"));
    const store = await JsonFileStore.open(path);
    const wrongKey = new SealedInstallationStore(
      store.collection<InstallationRecord>("installations"),
      new SecretBox(Buffer.alloc(32, 8).toString("base64")),
    );

    await expect(wrongKey.fetchInstallation(teamQuery("T1"))).rejects.toThrow();
  });
});
