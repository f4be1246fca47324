// Debian's chromium, launched with the flags every headless run here uses. Plain JavaScript so that the
// screenshot script can use it too.
import { chromium } from "playwright-core";

/** Debian's chromium (`.ci/run` installs it): Playwright never downloads a browser here. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

/** Without the background-networking flags chromium keeps calling home, which this machine refuses. */
const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--no-first-run",
];

/**
 * Browser UI that no page here uses: Chromium preloads two WebUI omnibox popups, each a page of its own, for
 * every window (one a browser context), which took about a third of the browser's CPU in the web area's tests.
 */
const FEATURES_OFF = ["WebUIOmniboxPopup", "WebUIOmniboxFullPopup", "WebUIOmniboxAimPopup"];

/** @type {Promise<string> | undefined} */
let disableFeatures;

/**
 * Chromium honours only the last `--disable-features` of its command line, and Playwright passes its own
 * (features that make automation deterministic) without exporting it: ours carries that list too, read off
 * the command line of a probe launch, once a process.
 * @returns {Promise<string>}
 */
function disableFeaturesSwitch() {
  disableFeatures ??= (async () => {
    const probe = await chromium.launchServer({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    try {
      const prefix = "--disable-features=";
      const playwrights = probe
        .process()
        .spawnargs.find((arg) => arg.startsWith(prefix))
        ?.slice(prefix.length)
        .split(",");
      return prefix + [...(playwrights ?? []), ...FEATURES_OFF].join(",");
    } finally {
      await probe.close();
    }
  })();
  return disableFeatures;
}

/** @returns {Promise<import("playwright-core").Browser>} */
export async function launchChromium() {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [...CHROMIUM_ARGS, await disableFeaturesSwitch()],
  });
}
