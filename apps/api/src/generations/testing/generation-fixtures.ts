import type { Account, CreditBucketType } from "@imagehub/db";
import type { Caller } from "../../accounts/api-key-auth.service.js";
import type { AppConfig } from "../../common/config.js";
import type { HeldKey } from "../../idempotency/idempotent-write.js";
import { creditHold, type NewGeneration, submitted } from "../generation.state-machine.js";
import type { GenerationWithImages } from "../generation.view.js";
import type { GenerationWorld } from "./in-memory-generations.js";

export const PUBLIC_BASE_URL = "https://imagehub.example.test";

/** The configuration the generation services read, with `generations` settings over the defaults. */
export function generationsConfig(generations: Partial<AppConfig["generations"]> = {}): AppConfig {
  return {
    http: { publicBaseUrl: PUBLIC_BASE_URL },
    generations: {
      engine: "procedural",
      engines: ["procedural", "midjourney"],
      maxActivePerAccount: 0,
      refusedTerms: ["nude", "gore"],
      maxLifetimeSeconds: 3600,
      engineTimeoutSeconds: 5,
      engineCalls: { pollIntervalMs: 60_000 },
      ...generations,
    },
  } as AppConfig;
}

let accounts = 0;

/** A caller of a new account, with `credits` in its buckets (given unlimited when `Infinity`). */
export function newCaller(
  world: GenerationWorld,
  {
    plan = "standard",
    credits = { f_images_print: 5 },
    activeGenerations,
  }: {
    plan?: "standard" | "dedicated";
    credits?: Partial<Record<CreditBucketType, number>>;
    activeGenerations?: number;
  } = {},
): Caller {
  accounts += 1;
  const id = `00000000-0000-4000-8000-${String(accounts).padStart(12, "0")}`;
  for (const [type, balance] of Object.entries(credits)) {
    world.giveCredits(id, type as CreditBucketType, balance === Infinity ? 0 : balance, balance === Infinity);
  }
  return {
    account: { id, plan } as Account,
    apiKey: null,
    actor: `api-key:${accounts}`,
    limits: activeGenerations === undefined ? {} : { "active-generations": activeGenerations },
  };
}

/** The key a request holding `key` runs under, answering `statusCode` on success. */
export function heldKey(caller: Caller, key: string, statusCode: number): HeldKey {
  return { scope: { accountId: caller.account.id, key }, statusCode };
}

/** A generation of the caller's as a create writes it, its credit held, already in `world`. */
export function queuedGeneration(
  world: GenerationWorld,
  caller: Caller,
  fields: Partial<NewGeneration> = {},
): GenerationWithImages {
  const { generation } = submitted({
    accountId: caller.account.id,
    apiKeyId: null,
    name: "Fox in the snow",
    prompt: "a red fox in the snow",
    additionalPrompt: null,
    mode: "simple",
    optimizePrompt: false,
    params: [{ name: "format", value: "16:9" }],
    tags: [],
    metaData: {},
    processMode: "relax",
    engine: "procedural",
    ...fields,
  });
  world.debit(creditHold(generation, caller.actor));
  world.generations.set(generation.id, generation);
  return generation;
}
