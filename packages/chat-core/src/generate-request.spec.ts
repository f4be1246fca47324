import { describe, expect, it } from "vitest";
import { nameOf, toCreateRequest } from "./generate-request.js";

describe("toCreateRequest", () => {
  it("turns chat options into the API's simple-mode parameters", () => {
    expect(
      toCreateRequest({
        mode: "simple",
        prompt: "a lighthouse",
        format: "16:9",
        time: "sunset",
        template: "smartphone",
        chaos: 20,
        stylize: "300",
        avoid: "text, logos",
        optimize: true,
        fast: true,
      }),
    ).toEqual({
      ok: true,
      request: {
        name: "a lighthouse",
        prompt: "a lighthouse",
        mode: "simple",
        optimizePrompt: true,
        processMode: "fast",
        params: [
          { name: "format", value: "16:9" },
          { name: "time", value: "sunset" },
          { name: "templatePrompt", value: "realisticManuel" },
          { name: "chaos", value: "20" },
          { name: "stylize", value: "300" },
          { name: "interdiction", value: "text, logos" },
        ],
      },
    });
  });

  it("names the chat option in each problem, with the API's rule", () => {
    const result = toCreateRequest({
      mode: "simple",
      prompt: "a lake",
      format: "2:1",
      chaos: 120,
      avoid: "x",
    });
    expect(!result.ok && result.problems).toEqual([
      expect.stringMatching(/^format: .*"16:9"/),
      expect.stringMatching(/^chaos: .*100/),
    ]);
    const flags = toCreateRequest({ mode: "simple", prompt: "a lake --ar 2:1" });
    expect(!flags.ok && flags.problems).toEqual([expect.stringMatching(/^prompt: .*--ar/)]);
  });

  it("checks an advanced command with the API's parser", () => {
    expect(toCreateRequest({ mode: "advanced", command: "a castle --ar 16:9 --chaos 20" })).toMatchObject({
      ok: true,
      request: { name: "a castle", prompt: "a castle --ar 16:9 --chaos 20", mode: "advanced" },
    });
    const refused = toCreateRequest({ mode: "advanced", command: "a castle --chaos 500" });
    expect(!refused.ok && refused.problems).toEqual([expect.stringMatching(/^command: .*--chaos/)]);
  });

  it("names a generation after its description, cut at a word boundary", () => {
    expect(nameOf("a castle --ar 16:9")).toBe("a castle");
    const long = nameOf(`${"word ".repeat(60)}end`);
    expect(long.length).toBeLessThanOrEqual(200);
    expect(long.endsWith("word…")).toBe(true);
  });
});
