import { describe, expect, it } from "vitest";
import { connectedText, refusalText, statusText } from "./command-answers.js";

const account = { email: "team@example.test", apiKeyId: "k1", apiKeyPrefix: "ih_abc" };

describe("refusalText", () => {
  it("says nothing was created, and why", () => {
    expect(refusalText(["chaos: must be at most 100"])).toBe(
      ":no_entry: Nothing was created. chaos: must be at most 100",
    );
  });

  it("lists several problems", () => {
    expect(refusalText(["a", "b"])).toBe(":no_entry: Nothing was created.\n• a\n• b");
  });

  it("adds the syntax when asked", () => {
    expect(refusalText(["--x: unknown flag"], { withSyntax: true })).toContain(
      "Usage: /generate `<description>",
    );
  });
});

describe("statusText", () => {
  it("names the account and the credits of generations then purchases", () => {
    const text = statusText({
      account,
      isOwnKey: true,
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
      credits: [{ type: "f_images", credit: 1, creditTotal: 1, unlimited: true }],
    });

    expect(text).toContain("this deployment's default key");
    expect(text).toContain("purchases left: unlimited");
  });
});

describe("connectedText", () => {
  it("names the account and never the key", () => {
    expect(connectedText(account)).toContain("*team@example.test* (key `ih_abc…`)");
  });
});
