// Debian's chromium and the flags every headless run here uses. Plain JavaScript so that the
// screenshot script can use it too.

/** Debian's chromium (`.ci/run` installs it): Playwright never downloads a browser here. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

/** Without the background-networking flags chromium keeps calling home, which this machine refuses. */
export const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--no-first-run",
];
