const DATE_TIME = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" });

/** A moment in the reader's own time zone and words ("27 Nov 2026, 08:31"); "—" when there is none. */
export function formatDate(value: string | null | undefined): string {
  return value ? DATE_TIME.format(new Date(value)) : "—";
}

/**
 * A link of the API on this page's origin: the API answers absolute links on its public address, which
 * may not be the one the browser reached (a proxy, a test server), and the page's policy loads only its own.
 */
export function onThisOrigin(url: string): string {
  const parsed = new URL(url, window.location.origin);
  return `${parsed.pathname}${parsed.search}`;
}
