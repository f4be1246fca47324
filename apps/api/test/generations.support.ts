import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { expect } from "vitest";
import { type JsonBody, readJson } from "../../../tests/support/json.js";
import type { TestApi } from "../../../tests/support/test-api.js";
import { until } from "../../../tests/support/until.js";
import type { LocalStorageConfig } from "../src/common/config.js";

const FINISHED = [3, 4];

export const fox = {
  name: "Fox in the snow",
  prompt: "a red fox in the snow",
  mode: "simple",
  params: [
    { name: "format", value: "16:9" },
    { name: "weather", value: "snowy" },
    { name: "time", value: "sunrise" },
  ],
};

/** Requests and reads shared by the generation suites, each with its own API. */
export function client(api: () => TestApi) {
  const prisma = () => api().resources.database.prisma;
  const send = (method: string, path: string, apiKey: string, json?: unknown) =>
    api().request(path, { apiKey, method, ...(json !== undefined && { json }) });
  return {
    prisma,
    send,
    create: async (apiKey: string, body: unknown = fox) => {
      const response = await send("POST", "/v1/image-generations", apiKey, body);
      expect(response.status, JSON.stringify(await response.clone().json())).toBe(201);
      return readJson(response);
    },
    get: async (apiKey: string, id: string) =>
      readJson(await send("GET", `/v1/image-generations/${id}`, apiKey)),
    /** Polls Get until the generation is Done or in Error. */
    finished: async (apiKey: string, id: string, timeoutMs = 60_000): Promise<JsonBody> => {
      let generation: JsonBody = {};
      await until(
        async () => {
          generation = await readJson(await send("GET", `/v1/image-generations/${id}`, apiKey));
          return FINISHED.includes(generation.status);
        },
        { timeoutMs, what: `generation ${id} to finish` },
      );
      return generation;
    },
    /** The generation's outbox events, oldest first. */
    events: async (generationId: string) =>
      prisma().outboxEvent.findMany({
        where: { generationId },
        orderBy: [{ createdAt: "asc" }, { id: "asc" }],
      }),
    /** A Display Image URL, asked of this test's API (the URL names the configured public address). */
    display: (url: string, apiKey?: string) =>
      api().request(new URL(url).pathname, { ...(apiKey && { apiKey }) }),
    credit: async (apiKey: string, type: string) =>
      (await readJson(await send("GET", "/v1/credit", apiKey))).credits.find(
        (bucket: { type: string }) => bucket.type === type,
      )?.credit,
  };
}

/** Files stored for a generation, under the local storage directory. */
export async function storedFiles(api: TestApi, generationId: string): Promise<string[]> {
  const dir = join((api.resources.config.storage as LocalStorageConfig).dir, "generations", generationId);
  return readdir(dir, { recursive: true }).then(
    (entries) => entries.filter((entry) => entry.endsWith(".jpg")),
    () => [],
  );
}
