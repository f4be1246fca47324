import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { SecretBox } from "./secret-box.js";

describe("SecretBox", () => {
  const key = randomBytes(32).toString("base64");

  it("seals with a fresh nonce each time and opens what it sealed", () => {
    const box = new SecretBox(key);
    const first = box.seal("ih_secret-key");
    expect(first).not.toContain("ih_secret-key");
    expect(box.seal("ih_secret-key")).not.toBe(first);
    expect(box.open(first)).toBe("ih_secret-key");
    expect(new SecretBox(Buffer.from(key, "base64").toString("hex")).open(first)).toBe("ih_secret-key");
  });

  it("refuses a tampered value and another key", () => {
    const sealed = new SecretBox(key).seal("ih_secret-key");
    const parts = sealed.split(".");
    const tampered = [...parts.slice(0, 3), Buffer.from("ih_other-key!").toString("base64url")].join(".");
    expect(() => new SecretBox(key).open(tampered)).toThrow();
    expect(() => new SecretBox(randomBytes(32).toString("base64")).open(sealed)).toThrow();
  });

  it("asks for a 32-byte key", () => {
    expect(() => new SecretBox("short")).toThrow(/32 bytes/);
  });
});
