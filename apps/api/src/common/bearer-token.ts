import { timingSafeEqual } from "node:crypto";

/**
 * Whether an `Authorization` header is `Bearer <token>`, compared in constant time so that the answer's
 * timing tells nothing of the token. Never true without a token configured.
 */
export function isBearer(authorization: string | undefined, token: string | undefined): boolean {
  if (!token || !authorization?.startsWith("Bearer ")) return false;
  const presented = Buffer.from(authorization.slice("Bearer ".length));
  const expected = Buffer.from(token);
  return presented.length === expected.length && timingSafeEqual(presented, expected);
}
