import { compileGeneration } from "@imagehub/domain";
import { beforeEach, describe, expect, it } from "vitest";
import { CHAT_PATH, chatAnswer, openAiError, startFakeOpenAi } from "../../../tests/support/fake-openai.js";
import { type FakeOutcome, gate, HANG, RESET } from "../../../tests/support/fake-service.js";
import { generationsOf, runGeneration, useEngineTestApi } from "../../../tests/support/generation-runs.js";
import { until } from "../../../tests/support/until.js";
import { BuiltinPromptOptimizer } from "../src/engines/builtin-prompt-optimizer.js";
import { OPTIMIZED_MAX_LENGTH, OPTIMIZER_SYSTEM_PROMPT } from "../src/engines/llm-prompt-optimizer.js";

const API_KEY = "sk-test-llm-5d2e8f1a7b3c4d6e9f0a1b2c";
const REWRITE = "Un renard roux au pelage flamboyant dans la neige fraîche, lumière rose de l'aube";

const renard = {
  name: "Renard",
  prompt: "un renard roux dans la neige",
  additionalPrompt: "Affiche d'hiver :",
  mode: "simple",
  optimizePrompt: true,
  params: [
    { name: "format", value: "16:9" },
    { name: "time", value: "sunrise" },
    { name: "weather", value: "snowy" },
    { name: "interdiction", value: "arbres" },
  ],
};

/** What the built-in rewriter makes of `renard`: the fallback's answer. */
function builtinRewrite(): Promise<string> {
  const request = compileGeneration({ mode: "simple", prompt: renard.prompt, params: renard.params });
  return new BuiltinPromptOptimizer().optimize({ description: renard.prompt, request });
}

describe("the LLM prompt optimizer", () => {
  const engine = useEngineTestApi(startFakeOpenAi, (fakeUrl) => ({
    PROMPT_OPTIMIZER: "llm",
    PROMPT_OPTIMIZER_BASE_URL: `${fakeUrl}/v1`,
    PROMPT_OPTIMIZER_API_KEY: API_KEY,
    PROMPT_OPTIMIZER_MODEL: "llama3.1:8b",
    PROMPT_OPTIMIZER_TIMEOUT_SECONDS: "0.5",
  }));
  beforeEach(() => {
    engine.fake.on("POST", CHAT_PATH, () => chatAnswer(REWRITE));
  });

  /** `renard` optimised and drawn, after the LLM's answers `outcomes` (then REWRITE), with its requests. */
  async function optimize(...outcomes: FakeOutcome[]) {
    engine.fake.queue("POST", CHAT_PATH, ...outcomes);
    return runGeneration(engine.api, engine.fake, renard, { path: CHAT_PATH });
  }

  const warnings = () =>
    engine.logLines
      .map((line) => JSON.parse(line) as { level: number; msg: string })
      .filter((entry) => entry.level === 40 && entry.msg.includes("the built-in rewriter"));

  it("asks POST /v1/chat/completions with its key and model: the system prompt, then the description and settings", async () => {
    const { finished, requests } = await optimize();
    expect(finished).toMatchObject({ status: 3, optimizedPrompt: REWRITE, prompt: renard.prompt });
    expect(requests).toHaveLength(1);
    expect(requests[0]?.headers).toMatchObject({
      authorization: `Bearer ${API_KEY}`,
      "content-type": "application/json",
    });
    expect(requests[0]?.body).toEqual({
      model: "llama3.1:8b",
      messages: [
        { role: "system", content: OPTIMIZER_SYSTEM_PROMPT },
        {
          role: "user",
          // additionalPrompt is never rewritten: the LLM does not see it.
          content:
            "Description: un renard roux dans la neige\nSettings: style: high quality realistic photo; time of day: sunrise; weather: snowy; frame: 16:9; left out: arbres",
        },
      ],
    });
  });

  it("tells the model to keep the user's subject and language, and the length bound", () => {
    expect(OPTIMIZER_SYSTEM_PROMPT).toContain("Keep the user's subject");
    expect(OPTIMIZER_SYSTEM_PROMPT).toContain("Write in the language of the description");
    expect(OPTIMIZER_SYSTEM_PROMPT).toContain(`at most ${OPTIMIZED_MAX_LENGTH} characters`);
  });

  it("keeps the rewrite on one line, without the quotes models wrap answers in", async () => {
    const { finished } = await optimize(chatAnswer(`  "Un renard roux\n\ndans la neige"  `));
    expect(finished.optimizedPrompt).toBe("Un renard roux dans la neige");
  });

  it("cuts a rewrite longer than the bound at a word", async () => {
    const { finished } = await optimize(chatAnswer("renard ".repeat(300)));
    expect(finished.optimizedPrompt.length).toBeLessThanOrEqual(OPTIMIZED_MAX_LENGTH);
    expect(finished.optimizedPrompt).toMatch(/^(renard )*renard$/);
  });

  it("waits for a slow LLM within its time limit", async () => {
    const slow = gate();
    engine.fake.on("POST", CHAT_PATH, async () => {
      await slow.opened;
      return chatAnswer(REWRITE);
    });
    const { apiKey } = await engine.api.createAccount();
    const generations = generationsOf(engine.api, apiKey);
    const before = engine.fake.requestsTo("POST", CHAT_PATH).length;
    const created = await generations.create(renard);
    await until(() => engine.fake.requestsTo("POST", CHAT_PATH).length > before, { what: "the LLM asked" });
    const waiting = await generations.get(created.id);
    expect(waiting).toMatchObject({ status: 2, nbImages: 0 });
    expect(waiting.optimizedPrompt).toBeUndefined();
    slow.open();
    expect(await generations.finished(created.id)).toMatchObject({ status: 3, optimizedPrompt: REWRITE });
  });

  it("asks again after a 429", async () => {
    const { finished, requests } = await optimize(
      openAiError(
        429,
        { code: "rate_limit_exceeded", type: "requests", message: "slow down" },
        { "retry-after": "0" },
      ),
    );
    expect(finished.optimizedPrompt).toBe(REWRITE);
    expect(requests).toHaveLength(2);
  });

  const serverError = openAiError(500, {
    code: null,
    type: "server_error",
    message: "The server had an error",
  });
  it.each<[string, FakeOutcome[], number]>([
    ["a storm of 500s", [serverError, serverError], 2],
    ["no answer in time", [HANG, HANG], 2],
    ["an unreachable LLM", [RESET, RESET], 2],
    ["a refused key", [openAiError(401, { code: "invalid_api_key", type: "auth", message: "bad key" })], 1],
    [
      "a refused description",
      [openAiError(400, { code: "content_filter", type: "invalid_request_error", message: "filtered" })],
      1,
    ],
    ["a message stopped by a content filter", [chatAnswer(null)], 1],
    ["an empty rewrite", [chatAnswer("  \n ")], 1],
    ["a malformed answer", [{ json: { choices: [] } }], 1],
  ])("falls back to the built-in rewriter, with a warning, on %s", async (_, outcomes, asked) => {
    const warned = warnings().length;
    const { finished, requests } = await optimize(...outcomes);
    expect(finished).toMatchObject({ status: 3, nbImages: 4, optimizedPrompt: await builtinRewrite() });
    expect(requests).toHaveLength(asked);
    expect(warnings()).toHaveLength(warned + 1);
  });

  it("never writes its key in the log", () => {
    expect(engine.logLines.length).toBeGreaterThan(0);
    expect(engine.logLines.filter((line) => line.includes(API_KEY.slice(0, 12)))).toEqual([]);
  });
});
