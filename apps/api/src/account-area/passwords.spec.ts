import { describe, expect, it } from "vitest";
import { hashPassword, isPasswordCorrect } from "./passwords.js";

describe("passwords", () => {
  it("hashes with argon2id at OWASP's cost, salted: the same password never hashes alike", async () => {
    const first = await hashPassword("correct horse battery staple");
    expect(first).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    expect(await hashPassword("correct horse battery staple")).not.toBe(first);
  });

  it("accepts the password a hash was made from and refuses any other", async () => {
    const stored = await hashPassword("correct horse battery staple");
    expect(await isPasswordCorrect(stored, "correct horse battery staple")).toBe(true);
    expect(await isPasswordCorrect(stored, "correct horse battery stapler")).toBe(false);
  });

  it("refuses every password for an account without one, and a hash it cannot read", async () => {
    expect(await isPasswordCorrect(null, "no-password")).toBe(false);
    expect(await isPasswordCorrect("not a hash", "anything")).toBe(false);
  });
});
