/** The web area's session cookie: HTTP-only, SameSite=Lax, Secure when the site is served over https. */
export const SESSION_COOKIE = "imagehub_session";

/** The cookie's value; undefined when absent or not valid percent-encoding (no token of ours is). */
export function readCookie(header: string | undefined, name: string): string | undefined {
  for (const pair of (header ?? "").split(";")) {
    const separator = pair.indexOf("=");
    if (separator > 0 && pair.slice(0, separator).trim() === name) {
      try {
        return decodeURIComponent(pair.slice(separator + 1).trim());
      } catch {
        return undefined;
      }
    }
  }
  return undefined;
}

export function sessionCookie(token: string, options: { maxAgeSeconds: number; isSecure: boolean }): string {
  return [
    `${SESSION_COOKIE}=${token}`,
    "Path=/",
    `Max-Age=${options.maxAgeSeconds}`,
    "HttpOnly",
    "SameSite=Lax",
    ...(options.isSecure ? ["Secure"] : []),
  ].join("; ");
}

export function clearedSessionCookie(isSecure: boolean): string {
  return sessionCookie("", { maxAgeSeconds: 0, isSecure });
}
