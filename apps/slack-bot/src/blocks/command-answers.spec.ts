import { describe, expect, it } from "vitest";
import { connectedText, parseSettingsChange, refusalText, statusText, usageText } from "./command-answers.js";

const account = { email: "team@example.test", apiKeyId: "k1", apiKeyPrefix: "ih_abc" };

describe("refusalText", () => {
  it("says nothing was created, and why", () => {
    expect(refusalText(["chaos: must be at most 100"], "en")).toBe(
      ":no_entry: Nothing was created. chaos: must be at most 100",
    );
  });

  it("lists several problems", () => {
    expect(refusalText(["a", "b"], "en")).toBe(":no_entry: Nothing was created.\n• a\n• b");
  });

  it("adds the syntax when asked", () => {
    expect(refusalText(["--x: unknown flag"], "en", { withSyntax: true })).toContain(
      "Usage: /generate `<description>",
    );
  });
});

describe("statusText", () => {
  it("names the account and the credits of generations then purchases", () => {
    const text = statusText({
      account,
      isOwnKey: true,
      locale: "en",
      credits: [
        { type: "f_images", credit: 0, creditTotal: 10, unlimited: false },
        { type: "f_images_print", credit: 5, creditTotal: 5, unlimited: false },
        { type: "f_websites", credit: 1, creditTotal: 1, unlimited: false },
      ],
    });

    expect(text).toContain("This workspace uses the imagehub account *team@example.test* (key `ih_abc…`)");
    expect(text).toContain("generations left: 5 · purchases left: 0");
    expect(text).not.toContain("websites");
  });

  it("says when the default key of the deployment serves the workspace", () => {
    const text = statusText({
      account,
      isOwnKey: false,
      locale: "en",
      credits: [{ type: "f_images", credit: 1, creditTotal: 1, unlimited: true }],
    });

    expect(text).toContain("this deployment's default key");
    expect(text).toContain("purchases left: unlimited");
  });
});

describe("connectedText", () => {
  it("names the account and never the key", () => {
    expect(connectedText(account, "en")).toContain("*team@example.test* (key `ih_abc…`)");
  });
});

describe("the daily quota of generations per person", () => {
  it("is set by `quota <n>`, cleared by `quota none`, and refuses anything else", () => {
    expect(parseSettingsChange(["quota", "10"], "en")).toEqual({
      ok: true,
      change: { dailyGenerationsPerPerson: 10 },
    });
    expect(parseSettingsChange(["quota", "none"], "en")).toEqual({
      ok: true,
      change: { dailyGenerationsPerPerson: null },
    });
    expect(parseSettingsChange(["quota", "ten"], "en")).toMatchObject({
      ok: false,
      problem: expect.stringMatching(/^`quota` takes/),
    });
  });

  it("is told with the person's day, their cooldown and the team's places", () => {
    expect(
      usageText(
        {
          startedToday: 3,
          dailyQuota: 5,
          cooldownLeftSeconds: 12,
          cooldownSeconds: 30,
          teamRunning: 2,
          maxRunningPerTeam: 3,
        },
        "en",
      ),
    ).toBe(
      [
        ":bar_chart: Your use of imagehub here:",
        "• Today (UTC) you started 3 generations of the 5 this team allows each person a day.",
        "• One generation every 30 s per person: you can start another in 12 s.",
        "• This team has 2 of its 3 generations at once queued or running.",
      ].join("\n"),
    );
  });
});
