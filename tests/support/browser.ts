import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { type Browser, chromium, type Page } from "playwright-core";
import { CHROMIUM, CHROMIUM_ARGS } from "./chromium.mjs";

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
}

const axeSource = readFile(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[] }[];
}

/** Runs axe-core in the page and answers its serious and critical violations (WCAG 2.x A and AA rules). */
export async function seriousAccessibilityViolations(page: Page): Promise<AxeViolation[]> {
  // Evaluated through the DevTools protocol: the page's Content-Security-Policy refuses inline scripts.
  await page.evaluate(await axeSource);
  const violations = await page.evaluate(async () => {
    const axe = (
      globalThis as unknown as { axe: { run: (options: unknown) => Promise<{ violations: unknown[] }> } }
    ).axe;
    const result = await axe.run({
      runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"] },
    });
    return result.violations as AxeViolation[];
  });
  return violations
    .filter((violation) => violation.impact === "serious" || violation.impact === "critical")
    .map(({ id, impact, help, nodes }) => ({
      id,
      impact,
      help,
      nodes: nodes.map(({ target }) => ({ target })),
    }));
}
