import { type OperationId, operations } from "@imagehub/domain";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type JsonBody, readJson } from "../../../tests/support/json.js";
import {
  LIVE_ANSWERS,
  LiveErrorBody,
  LiveImageGeneration,
  LiveWebhookEnvelope,
} from "../../../tests/support/live-vocabulary.js";
import { startTestApi, type TestApi } from "../../../tests/support/test-api.js";
import { until } from "../../../tests/support/until.js";
import { WebhookReceiver } from "../../../tests/support/webhook-receiver.js";

/**
 * Every answer of every operation, read as a strict client of the live service reads it: generations
 * created in both modes and with both spellings of a parameter, then each operation called once to succeed
 * and once to fail.
 */
describe("the live vocabulary contract", () => {
  let api: TestApi;
  let apiKey: string;
  let receiver: WebhookReceiver;
  const answered = new Set<OperationId>();
  const refused = new Set<OperationId>();

  beforeAll(async () => {
    api = await startTestApi({
      env: { WEBHOOK_ALLOW_HTTP: "true", WEBHOOK_ALLOW_PRIVATE: "true", WEBHOOK_RELAY_INTERVAL_MS: "20" },
    });
    receiver = await new WebhookReceiver().start();
    ({ apiKey } = await api.createAccount({
      plan: "dedicated",
      credits: { f_images: 20, f_images_print: 10, f_images_print_fast: 1 },
    }));
  });
  afterAll(async () => {
    await receiver.stop();
    await api.close();
  });

  /** Calls an operation the way live clients do (JSON content type always) and checks the answer. */
  async function call(
    operationId: OperationId,
    path: string,
    { body, isAnonymous = false, status }: { body?: unknown; isAnonymous?: boolean; status?: number } = {},
  ): Promise<JsonBody> {
    const operation = operations[operationId];
    const response = await api.request(path, {
      ...(!isAnonymous && { apiKey }),
      method: operation.method,
      headers: { "content-type": "application/json" },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
    const expected = status ?? operation.success.status;
    const text = response.status === expected ? undefined : await response.clone().text();
    expect(response.status, `${operationId} ${path}: ${text}`).toBe(expected);
    if (expected >= 400) {
      refused.add(operationId);
      return LiveErrorBody.parse(await readJson(response));
    }
    answered.add(operationId);
    const answer = LIVE_ANSWERS[operationId];
    if (answer === "image/jpeg") {
      expect(response.headers.get("content-type")).toMatch(/^image\/jpeg/);
      return response.arrayBuffer();
    }
    if (answer === "empty") {
      expect(await response.text()).toBe("");
      return undefined;
    }
    const parsed = answer.safeParse(await readJson(response));
    expect(parsed.error?.issues ?? [], `${operationId} ${path}`).toEqual([]);
    return parsed.data;
  }

  const finished = async (id: string): Promise<JsonBody> => {
    let generation: JsonBody;
    await until(
      async () => {
        generation = await call("getImageGeneration", `/v1/image-generations/${id}`);
        return [3, 4].includes(generation.status);
      },
      { what: `generation ${id} to finish` },
    );
    return generation;
  };

  it("answers every operation in the live vocabulary, generations of both modes and spellings", async () => {
    await call("health", "/health");
    await call("liveness", "/health/live");
    await call("checkApiKey", "/v1/api-keys/check");
    await call("getCredits", "/v1/credit");
    const { webhookId } = await call("subscribeWebhook", "/v1/api-keys/webhook/subscribe", {
      body: {
        url: receiver.url,
        events: ["print.created", "print.progress", "print.completed", "print.failed"],
      },
    });

    const created = [
      await call("createImageGeneration", "/v1/image-generations", {
        body: {
          name: "Spec spelling",
          prompt: "a red fox in the snow",
          mode: "simple",
          params: [
            { name: "Time", value: "sunset" },
            { name: "chaos", value: 20 },
          ],
          tags: ["fox"],
          metaData: { order: 12 },
        },
      }),
      await call("createImageGeneration", "/v1/image-generations", {
        body: {
          name: "Live spelling",
          prompt: "a red fox in the snow",
          additionalPrompt: "Warm tones",
          mode: "simple",
          optimizePrompt: true,
          processMode: "relax",
          params: [
            { name: "time", value: "night" },
            { name: "sujetMode", value: "portrait" },
            { name: "angle", value: "low angle" },
            { name: "photographe", value: "Ansel Adams" },
            { name: "version", value: "6" },
            { name: "fromImageUrl", value: "https://images.example.com/fox.png" },
          ],
        },
      }),
      await call("createImageGeneration", "/v1/image-generations", {
        body: { name: "Advanced", prompt: "a red fox --ar 16:9 --c 10 --v 6.1", mode: "advanced" },
      }),
      await call("createImageGeneration", "/v1/image-generations", {
        body: { name: "Refused", prompt: "gore", mode: "simple", params: [{ name: "Time", value: "night" }] },
      }),
    ];
    const [spec, live, , refusedOne] = await Promise.all(
      created.map((generation) => finished(generation.id)),
    );
    expect([spec.params, live.params.map((param: JsonBody) => param.name)]).toEqual([
      [
        { name: "time", value: "sunset" },
        { name: "chaos", value: "20" },
      ],
      ["time", "sujetMode", "angle", "photographe", "version", "fromImageUrl"],
    ]);
    expect(refusedOne.status).toBe(4);

    await call("findImageGenerations", "/v1/image-generations?limit=100");
    await call("findImageGenerations", "/v1/image-generations?status=4&name=Refused");
    await call("updateImageGeneration", `/v1/image-generations/${refusedOne.id}`, {
      body: { prompt: "a calm lake", params: [{ name: "Time", value: "morning" }] },
    });
    await call("retryImageGeneration", `/v1/image-generations/retry/${refusedOne.id}`);
    await finished(refusedOne.id);

    const [image] = spec.images;
    await call("searchImages", "/v1/images/search", { body: { search: "lake", limit: 5 } });
    await call("searchImages", "/v1/images/search");
    await call("displayImage", new URL(image.url).pathname, { isAnonymous: true });
    const bought = await call("buyImage", "/v1/images/buy", { body: { id: image.id } });
    const signed = new URL(bought.urlFull);
    await call("signedImageFile", `${signed.pathname}${signed.search}`, { isAnonymous: true });
    await call("downloadImage", "/v1/images/download", { body: { id: spec.images[1].id } });
    await call("downloadedImages", "/v1/images/downladed", { body: { limit: 10 } });

    await call("getWebhook", `/v1/api-keys/webhook/${webhookId}`);
    await call("listWebhooks", "/v1/api-keys/webhooks");
    await call("testWebhook", `/v1/api-keys/webhook/${webhookId}/test`);
    await until(async () => receiver.received.some((delivery) => delivery.envelope.type === "test"), {
      what: "the test event",
    });
    await call("listWebhookAttempts", `/v1/api-keys/webhook/${webhookId}/attempts`);
    await call("enableWebhook", `/v1/api-keys/webhook/${webhookId}/enable`);
    await call("deleteImageGenerations", "/v1/image-generations", {
      body: { printIds: [created[2].id, "0190b7a4-0000-7000-8000-000000000000"] },
    });
    await call("unsubscribeWebhook", `/v1/api-keys/webhook/unsubscribe/${webhookId}`);

    expect([...answered].sort()).toEqual(Object.keys(operations).sort());
    for (const delivery of receiver.received) LiveWebhookEnvelope.parse(delivery.envelope);
    for (const delivery of receiver.received.filter((one) => one.envelope.type !== "test")) {
      LiveImageGeneration.parse(delivery.envelope.data);
    }
  });

  it("refuses every operation in the error body", async () => {
    const unknown = "0190b7a4-0000-7000-8000-000000000000";
    const withoutKey = { isAnonymous: true, status: 401 };
    for (const operationId of Object.keys(operations) as OperationId[]) {
      if (operations[operationId].auth !== "required") continue;
      const path = operations[operationId].path.replace(/\{\w+\}/g, unknown);
      await call(operationId, path, withoutKey);
    }
    await call("displayImage", `/v1/images/preview/${unknown}.jpg`, { isAnonymous: true, status: 404 });
    await call("signedImageFile", `/v1/images/files/${unknown}/full.jpg?expires=1&signature=x`, {
      isAnonymous: true,
      status: 403,
    });
    // Health and liveness answer whoever asks; they fail only when the service does.
    const canFail = Object.keys(operations).filter((id) => id !== "health" && id !== "liveness");
    expect([...refused].sort()).toEqual(canFail.sort());
  });
});
