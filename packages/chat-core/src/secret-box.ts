import { createCipheriv, createDecipheriv, createHmac, randomBytes, timingSafeEqual } from "node:crypto";

const ALGORITHM = "aes-256-gcm";
const VERSION = "v1";

/**
 * Encrypts the secrets a bot keeps at rest (teams' API keys, webhook secrets) with AES-256-GCM: a fresh
 * 96-bit nonce per value, and the authentication tag checked on the way back, so a tampered or
 * wrongly-keyed value fails loudly instead of decrypting to garbage.
 */
export class SecretBox {
  private readonly key: Buffer;
  /** Signs what the bot writes where others can write too; derived, so that no key serves two purposes. */
  private readonly signingKey: Buffer;

  /** `key`: 32 bytes, as base64 or hex (e.g. `openssl rand -base64 32`). */
  constructor(key: string) {
    this.key = decodeKey(key);
    this.signingKey = createHmac("sha256", this.key).update("imagehub chat signing key v1").digest();
  }

  /** An HMAC-SHA256 of the text, base64url: proves later that this bot wrote it. */
  sign(text: string): string {
    return createHmac("sha256", this.signingKey).update(text, "utf8").digest("base64url");
  }

  isSignedByThisBot(text: string, signature: string): boolean {
    const expected = Buffer.from(this.sign(text), "base64url");
    const given = Buffer.from(signature, "base64url");
    return given.length === expected.length && timingSafeEqual(given, expected);
  }

  seal(plaintext: string): string {
    const nonce = randomBytes(12);
    const cipher = createCipheriv(ALGORITHM, this.key, nonce);
    const sealed = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
    return [VERSION, ...[nonce, cipher.getAuthTag(), sealed].map((part) => part.toString("base64url"))].join(
      ".",
    );
  }

  open(sealed: string): string {
    const [version, nonce, tag, ciphertext] = sealed.split(".");
    if (version !== VERSION || !nonce || !tag || ciphertext === undefined) {
      throw new Error("not a value sealed by this bot");
    }
    const decipher = createDecipheriv(ALGORITHM, this.key, Buffer.from(nonce, "base64url"));
    decipher.setAuthTag(Buffer.from(tag, "base64url"));
    try {
      return Buffer.concat([
        decipher.update(Buffer.from(ciphertext, "base64url")),
        decipher.final(),
      ]).toString("utf8");
    } catch (error) {
      throw new Error(
        "a value sealed with another BOT_ENCRYPTION_KEY: the key was changed, or two deployments share one database schema",
        { cause: error },
      );
    }
  }
}

function decodeKey(key: string): Buffer {
  const decoded = /^[0-9a-f]{64}$/i.test(key) ? Buffer.from(key, "hex") : Buffer.from(key, "base64");
  if (decoded.length !== 32) {
    throw new Error("the encryption key must be 32 bytes, given as base64 or hex (openssl rand -base64 32)");
  }
  return decoded;
}
