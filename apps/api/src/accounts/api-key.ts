import { createHash, randomBytes } from "node:crypto";

/** Keys look like `ih_<43 base64url characters>`: a recognisable prefix and 32 random bytes. */
export const API_KEY_PREFIX = "ih_";
const VISIBLE_CHARACTERS = API_KEY_PREFIX.length + 6;

export interface NewApiKey {
  key: string;
  hash: string;
  /** Enough of the key to recognise it in a listing; useless to an attacker. */
  prefix: string;
}

export function generateApiKey(): NewApiKey {
  const key = `${API_KEY_PREFIX}${randomBytes(32).toString("base64url")}`;
  return { key, hash: hashApiKey(key), prefix: key.slice(0, VISIBLE_CHARACTERS) };
}

export function hashApiKey(key: string): string {
  return createHash("sha256").update(key).digest("hex");
}
