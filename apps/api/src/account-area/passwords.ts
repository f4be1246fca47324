import { hash, verify } from "@node-rs/argon2";

/**
 * argon2id with the library's defaults (19 MiB, 2 passes, 1 lane: OWASP's recommendation). An account
 * without a password is checked against a fixed hash, so that a wrong email takes as long as a wrong password.
 */
const NO_PASSWORD =
  "$argon2id$v=19$m=19456,t=2,p=1$bm8tcGFzc3dvcmQtc2FsdA$Gt3NZD8iwHa/dIfuJZ0e7IpwjIQ2OhOQb4KvMjwkgcs";

export function hashPassword(password: string): Promise<string> {
  return hash(password);
}

export async function isPasswordCorrect(passwordHash: string | null, password: string): Promise<boolean> {
  const isMatch = await verify(passwordHash ?? NO_PASSWORD, password).catch(() => false);
  return isMatch && passwordHash !== null;
}
