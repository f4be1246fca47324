import { describe, expect, it } from "vitest";
import { loadSlackConfig } from "./config.js";

const base = {
  BOT_PUBLIC_URL: "https://bot.example.com",
  BOT_ENCRYPTION_KEY: "a".repeat(64),
  SLACK_SIGNING_SECRET: "signing-secret",
};
const oauth = {
  SLACK_CLIENT_ID: "1111.2222",
  SLACK_CLIENT_SECRET: "client-secret",
  SLACK_STATE_SECRET: "a-long-random-state-secret",
};

describe("loadSlackConfig", () => {
  it("reads a single-workspace deployment in HTTP mode", () => {
    const config = loadSlackConfig({ ...base, SLACK_BOT_TOKEN: "xoxb-1" });

    expect(config.auth).toEqual({ kind: "single-workspace", botToken: "xoxb-1" });
    expect(config.appToken).toBeUndefined();
    expect(config.isImagesPublic).toBe(false);
    expect(config.chat.publicUrl).toBe("https://bot.example.com");
  });

  it("reads an OAuth distribution", () => {
    expect(loadSlackConfig({ ...base, ...oauth }).auth).toEqual({ kind: "oauth", ...oauthValues() });
  });

  it("refuses the operator's default key with OAuth distribution, where any workspace may install", () => {
    expect(() => loadSlackConfig({ ...base, ...oauth, IMAGEHUB_API_KEY: "ih_operator" })).toThrow(
      /IMAGEHUB_API_KEY: not with OAuth distribution/,
    );
  });

  it("reads Socket Mode, where the signing secret is not needed", () => {
    const { SLACK_SIGNING_SECRET: _, ...withoutSecret } = base;

    const config = loadSlackConfig({
      ...withoutSecret,
      SLACK_BOT_TOKEN: "xoxb-1",
      SLACK_APP_TOKEN: "xapp-1",
    });

    expect(config.appToken).toBe("xapp-1");
  });

  it("reads whether imagehub's images are public", () => {
    expect(
      loadSlackConfig({ ...base, SLACK_BOT_TOKEN: "xoxb-1", SLACK_IMAGES_PUBLIC: "true" }).isImagesPublic,
    ).toBe(true);
  });

  it("refuses HTTP mode without a signing secret", () => {
    const { SLACK_SIGNING_SECRET: _, ...withoutSecret } = base;

    expect(() => loadSlackConfig({ ...withoutSecret, SLACK_BOT_TOKEN: "xoxb-1" })).toThrow(
      /SLACK_SIGNING_SECRET/,
    );
  });

  it("refuses neither a bot token nor OAuth", () => {
    expect(() => loadSlackConfig(base)).toThrow(/SLACK_BOT_TOKEN: give either/);
  });

  it("refuses both a bot token and OAuth", () => {
    expect(() => loadSlackConfig({ ...base, ...oauth, SLACK_BOT_TOKEN: "xoxb-1" })).toThrow(
      /SLACK_BOT_TOKEN/,
    );
  });

  it("refuses half of the OAuth variables", () => {
    expect(() => loadSlackConfig({ ...base, SLACK_CLIENT_ID: "1111.2222" })).toThrow(
      /SLACK_CLIENT_ID: .* go together/,
    );
  });

  it("names every problem at once", () => {
    expect(() => loadSlackConfig({})).toThrow(
      /BOT_PUBLIC_URL[\s\S]*BOT_ENCRYPTION_KEY[\s\S]*SLACK_SIGNING_SECRET[\s\S]*SLACK_BOT_TOKEN: give either/,
    );
  });

  it("names a token of the wrong kind", () => {
    expect(() => loadSlackConfig({ ...base, SLACK_BOT_TOKEN: "xoxp-user-token" })).toThrow(/SLACK_BOT_TOKEN/);
  });
});

function oauthValues() {
  return {
    clientId: oauth.SLACK_CLIENT_ID,
    clientSecret: oauth.SLACK_CLIENT_SECRET,
    stateSecret: oauth.SLACK_STATE_SECRET,
  };
}
