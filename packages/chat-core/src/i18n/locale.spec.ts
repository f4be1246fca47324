import { describe, expect, it } from "vitest";
import { en } from "./en.js";
import { fr } from "./fr.js";
import { localeOf, messagesFor } from "./locale.js";

/** Every key path of a catalogue, with whether it is a sentence or a function and how many parameters it takes. */
function shapeOf(catalogue: object, path = ""): string[] {
  return Object.entries(catalogue).flatMap(([key, value]) => {
    const at = `${path}${key}`;
    if (typeof value === "function") return [`${at}(${value.length})`];
    if (typeof value === "object" && value !== null) return shapeOf(value, `${at}.`);
    return [`${at}: ${typeof value}`];
  });
}

describe("the catalogues", () => {
  it("word the same sentences in French as in English, key for key", () => {
    expect(shapeOf(fr).sort()).toEqual(shapeOf(en).sort());
  });

  it("leave no French sentence empty", () => {
    const sentences = shapeOf(fr).filter((entry) => entry.endsWith(": string"));
    expect(sentences.length).toBeGreaterThan(50);
    for (const entry of sentences) {
      const value = entry
        .split(": ")[0]
        ?.split(".")
        .reduce<unknown>((node, key) => (node as Record<string, unknown>)[key], fr);
      expect(value, entry).not.toBe("");
    }
  });
});

describe("localeOf", () => {
  it("reads Discord's and Slack's language tags", () => {
    expect(localeOf("fr")).toBe("fr");
    expect(localeOf("fr-FR")).toBe("fr");
    expect(localeOf("fr_CA")).toBe("fr");
    expect(localeOf("en-US")).toBe("en");
  });

  it("falls back on the next tag, then English", () => {
    expect(localeOf("de", "fr")).toBe("fr");
    expect(localeOf("pt-BR", null)).toBe("en");
    expect(localeOf(undefined)).toBe("en");
  });

  it("gives each language its catalogue", () => {
    expect(messagesFor("fr").view.done).toBe("Terminé");
    expect(messagesFor().view.done).toBe("Done");
  });
});
