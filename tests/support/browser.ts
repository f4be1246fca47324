import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import type { Page } from "playwright-core";

const axeSource = readFile(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[] }[];
}

/**
 * Landmarks' names must differ too (a moderate rule, outside the WCAG tags): a screen reader's list of
 * landmarks is useless when two read the same.
 */
const ALSO_CHECKED = ["landmark-unique"];

/**
 * Runs axe-core in the page and answers its serious and critical violations (WCAG 2.x A and AA rules),
 * and any of ALSO_CHECKED.
 */
export async function seriousAccessibilityViolations(page: Page): Promise<AxeViolation[]> {
  // Evaluated through the DevTools protocol: the page's Content-Security-Policy refuses inline scripts.
  await page.evaluate(await axeSource);
  const violations = await page.evaluate(async (alsoChecked) => {
    const axe = (
      globalThis as unknown as { axe: { run: (options: unknown) => Promise<{ violations: unknown[] }> } }
    ).axe;
    // One pass: a rule enabled by name runs beside the tags' rules (axe's ruleShouldRun).
    const { violations } = await axe.run({
      runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"] },
      rules: Object.fromEntries(alsoChecked.map((rule) => [rule, { enabled: true }])),
    });
    return violations as AxeViolation[];
  }, ALSO_CHECKED);
  return violations
    .filter(
      (violation) =>
        violation.impact === "serious" ||
        violation.impact === "critical" ||
        ALSO_CHECKED.includes(violation.id),
    )
    .map(({ id, impact, help, nodes }) => ({
      id,
      impact,
      help,
      nodes: nodes.map(({ target }) => ({ target })),
    }));
}
