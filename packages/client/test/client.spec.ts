import { once } from "node:events";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createImage, jpegSize } from "../../../tests/support/images.js";
import { freePort } from "../../../tests/support/start-command.mjs";
import { startTestApi, type TestApi } from "../../../tests/support/test-api.js";
import { WebhookReceiver } from "../../../tests/support/webhook-receiver.js";
import {
  ApiError,
  GenerationFailedError,
  ImagehubClient,
  NetworkError,
  TimeoutError,
  verifyWebhook,
  WebhookVerificationError,
} from "../src/index.js";

const fox = { name: "Fox", prompt: "a red fox in the snow", mode: "simple" as const };

async function listen(server: Server): Promise<string> {
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/**
 * A proxy to the API that answers 503 (Retry-After: 0) to the first `refused` requests it gets, then
 * forwards the next `lost` ones but cuts the connection instead of passing the answer on, as a network
 * that fails at the wrong moment does. Keeps the Idempotency-Key of every request.
 */
async function flakyProxy(target: string, { refused = 0, lost = 0 }: { refused?: number; lost?: number }) {
  let seen = 0;
  const keys: (string | undefined)[] = [];
  const server = createServer(async (request, response) => {
    seen += 1;
    keys.push(request.headers["idempotency-key"] as string | undefined);
    if (seen <= refused) {
      response.writeHead(503, { "retry-after": "0", "content-type": "text/plain" }).end("busy");
      return;
    }
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const headers = Object.fromEntries(
      Object.entries(request.headers).filter(
        ([name]) => !["host", "content-length", "connection"].includes(name),
      ),
    ) as Record<string, string>;
    const answer = await fetch(`${target}${request.url}`, {
      method: request.method ?? "GET",
      headers,
      ...(chunks.length > 0 && { body: Buffer.concat(chunks) }),
    });
    if (seen <= refused + lost) {
      response.destroy();
      return;
    }
    response.writeHead(answer.status, { "content-type": answer.headers.get("content-type") ?? "" });
    response.end(Buffer.from(await answer.arrayBuffer()));
  });
  return { url: await listen(server), requests: () => seen, keys, close: () => server.close() };
}

describe("ImagehubClient against the API", () => {
  let api: TestApi;
  let client: ImagehubClient;
  let imageIds: string[];

  beforeAll(async () => {
    api = await startTestApi({
      env: { WEBHOOK_ALLOW_HTTP: "true", WEBHOOK_ALLOW_PRIVATE: "true", WEBHOOK_RELAY_INTERVAL_MS: "20" },
    });
    const { apiKey } = await api.createAccount({ email: "client@example.test", name: "Client" });
    client = new ImagehubClient({ baseUrl: api.baseUrl, apiKey });
    const prisma = api.resources.database.prisma;
    imageIds = [];
    for (let index = 0; index < 5; index += 1) {
      imageIds.push((await createImage(prisma, { en: `Red fox number ${index}`, tags: ["fox"] })).id);
    }
  });
  afterAll(() => api.close());

  it("checks the key and reads the credits", async () => {
    expect(await client.keys.check()).toMatchObject({ email: "client@example.test", name: "Client" });
    const { credits } = await client.credits.get();
    expect(credits).toContainEqual(expect.objectContaining({ type: "f_images", credit: 10 }));
  });

  it("searches, and iterates every page of a search", async () => {
    const page = await client.images.search({ search: "fox", limit: 2 });
    expect(page.filteredResults).toBe(5);
    expect(page.images).toHaveLength(2);
    const all: string[] = [];
    for await (const image of client.images.searchAll({ search: "fox", limit: 2 })) all.push(image.id);
    expect(all.sort()).toEqual([...imageIds].sort());
  });

  it("buys, downloads and displays an image, and lists it as downloaded", async () => {
    const [first, second] = imageIds as [string, string];
    const bought = await client.images.buy(first);
    expect(bought).toMatchObject({ id: first });
    const uhd = await client.images.file(bought.urlUpscaleUHD);
    expect(await jpegSize(await uhd.arrayBuffer())).toMatchObject({ format: "jpeg", width: 3840 });
    const download = await client.images.download(first);
    expect(await jpegSize(await download.arrayBuffer())).toMatchObject({ format: "jpeg", width: 768 });
    const preview = await client.images.display("preview", second);
    expect(await jpegSize(await preview.arrayBuffer())).toMatchObject({ format: "jpeg", width: 512 });
    const downloaded: string[] = [];
    for await (const image of client.images.downloadedAll({ limit: 1 })) downloaded.push(image.id);
    expect(downloaded).toEqual([first]);
    expect((await client.images.downloaded()).images.map((image) => image.id)).toEqual([first]);
  });

  it("surfaces the API's error body as an ApiError", async () => {
    const error = await client.images.search({ limit: 101 }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({
      statusCode: 400,
      error: "Bad Request",
      messages: [expect.stringMatching(/^limit: /)],
      operationId: "searchImages",
    });
    await expect(
      new ImagehubClient({ baseUrl: api.baseUrl, apiKey: "ih_nope" }).keys.check(),
    ).rejects.toMatchObject({ statusCode: 401, messages: ["api-key is not valid"] });
  });

  it("runs a generation to Done, reporting progress, then lists, updates, retries and deletes", async () => {
    const created = await client.generations.create(fox);
    expect(created.status).toBe(1);
    const seen: string[] = [];
    const done = await client.waitForGeneration(created.id, {
      intervalMs: 50,
      onProgress: (generation) => seen.push(`${generation.status}:${generation.images.length}`),
    });
    expect(done.images).toHaveLength(4);
    expect(seen.at(-1)).toBe("3:4");
    expect(seen[0]).toMatch(/^[123]:/);

    expect((await client.generations.get(created.id)).id).toBe(created.id);
    expect((await client.generations.find({ limit: 10 })).prints.map((print) => print.id)).toContain(
      created.id,
    );
    const listed: string[] = [];
    for await (const print of client.generations.findAll({ limit: 1 })) listed.push(print.id);
    expect(listed).toContain(created.id);
    expect(await client.generations.update(created.id, { name: "Renamed fox" })).toMatchObject({
      name: "Renamed fox",
    });
    await expect(client.generations.retry(created.id)).rejects.toMatchObject({ statusCode: 409 });
    const missing = "01a20e00-0000-7000-8000-000000000000";
    expect(await client.generations.delete([created.id, missing])).toEqual({
      deleted: [created.id],
      notFound: [missing],
    });
    await expect(client.generations.get(created.id)).rejects.toMatchObject({ statusCode: 404 });
  });

  it("stops waiting when the caller aborts", async () => {
    const created = await client.generations.create(fox);
    const controller = new AbortController();
    const waiting = client.waitForGeneration(created.id, { intervalMs: 50, signal: controller.signal });
    controller.abort();
    await expect(waiting).rejects.toMatchObject({ name: "AbortError" });
  });

  it("rejects with GenerationFailedError when the generation ends in Error", async () => {
    const refused = await client.generations.create({ ...fox, prompt: "a nude fox" });
    const error = await client
      .waitForGeneration(refused.id, { intervalMs: 50 })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(GenerationFailedError);
    expect((error as GenerationFailedError).generation.failureReason).toBe("description not accepted");
  });

  it("manages webhooks, and verifies a real delivery", async () => {
    // An account of its own: the generations of the other tests send no events here.
    const { apiKey } = await api.createAccount();
    const client = new ImagehubClient({ baseUrl: api.baseUrl, apiKey });
    const receiver = await new WebhookReceiver().start();
    try {
      const { webhookId, secret } = await client.webhooks.subscribe({ url: receiver.url });
      expect(await client.webhooks.get(webhookId)).toMatchObject({ id: webhookId, disabled: false });
      expect((await client.webhooks.list()).webhooks.map((webhook) => webhook.id)).toEqual([webhookId]);
      const { eventId } = await client.webhooks.test(webhookId);
      const [delivery] = await receiver.waitFor(1);
      const headers = delivery?.headers as Record<string, string>;
      expect(verifyWebhook(delivery?.body ?? "", headers, secret)).toMatchObject({
        id: eventId,
        type: "test",
      });
      expect(() => verifyWebhook(`${delivery?.body} `, headers, secret)).toThrow(WebhookVerificationError);
      expect(() => verifyWebhook(delivery?.body ?? "", headers, `whsec_${"A".repeat(43)}=`)).toThrow(
        WebhookVerificationError,
      );
      expect(await client.webhooks.enable(webhookId)).toMatchObject({ disabled: false });
      await expect.poll(async () => (await client.webhooks.attempts(webhookId)).attempts.length).toBe(1);
      await client.webhooks.unsubscribe(webhookId);
      await expect(client.webhooks.get(webhookId)).rejects.toMatchObject({ statusCode: 404 });
    } finally {
      await receiver.stop();
    }
  });

  it("retries idempotent calls after a 503", async () => {
    const proxy = await flakyProxy(api.baseUrl, { refused: 2 });
    try {
      const { apiKey } = await api.createAccount();
      const flaky = new ImagehubClient({ baseUrl: proxy.url, apiKey });
      expect((await flaky.images.search({ search: "fox" })).filteredResults).toBe(5);
      expect(proxy.requests()).toBe(3);
      expect(proxy.keys).toEqual([undefined, undefined, undefined]);
    } finally {
      proxy.close();
    }
  });

  it("reads a Retry-After date as a wait, and gives up at once when it is further off than it waits", async () => {
    let requests = 0;
    const busy = createServer((_, response) => {
      requests += 1;
      const inFiveMinutes = new Date(Date.now() + 5 * 60_000).toUTCString();
      response.writeHead(503, { "retry-after": inFiveMinutes, "content-type": "text/plain" }).end("busy");
    });
    try {
      const impatient = new ImagehubClient({ baseUrl: await listen(busy), apiKey: "unused" });
      await expect(impatient.images.search({ search: "fox" })).rejects.toBeInstanceOf(ApiError);
      expect(requests).toBe(1);
    } finally {
      busy.close();
    }
  });

  it("retries a create whose answer was lost with the same Idempotency-Key, and is charged once", async () => {
    const proxy = await flakyProxy(api.baseUrl, { refused: 1, lost: 1 });
    try {
      const { apiKey, accountId } = await api.createAccount({ credits: { f_images_print: 5 } });
      const creating = new ImagehubClient({ baseUrl: proxy.url, apiKey });
      const created = await creating.generations.create(fox);
      expect(proxy.requests()).toBe(3);
      const [key, ...retries] = proxy.keys;
      expect(key).toMatch(/^[0-9a-f-]{36}$/);
      expect(retries).toEqual([key, key]);
      const generations = await api.resources.database.prisma.generation.findMany({ where: { accountId } });
      expect(generations.map((generation) => generation.id)).toEqual([created.id]);
      const credits = await new ImagehubClient({ baseUrl: api.baseUrl, apiKey }).credits.get();
      expect(credits.credits.find((bucket) => bucket.type === "f_images_print")?.credit).toBe(4);
    } finally {
      proxy.close();
    }
  });

  it("never repeats a creating call when idempotency keys are turned off", async () => {
    const proxy = await flakyProxy(api.baseUrl, { refused: 1 });
    try {
      const { apiKey } = await api.createAccount();
      const creating = new ImagehubClient({ baseUrl: proxy.url, apiKey, idempotencyKeys: false });
      await expect(creating.generations.create(fox)).rejects.toMatchObject({ statusCode: 503 });
      expect(proxy.requests()).toBe(1);
      expect(proxy.keys).toEqual([undefined]);
    } finally {
      proxy.close();
    }
  });

  it("tells network errors and timeouts apart from API errors", async () => {
    const nobody = new ImagehubClient({ baseUrl: `http://127.0.0.1:${await freePort()}`, retries: 0 });
    await expect(nobody.keys.check()).rejects.toBeInstanceOf(NetworkError);

    const silent = createServer(() => {
      // Never answers.
    });
    const url = await listen(silent);
    try {
      const slow = new ImagehubClient({ baseUrl: url, timeoutMs: 200, retries: 0 });
      await expect(slow.keys.check()).rejects.toBeInstanceOf(TimeoutError);
    } finally {
      silent.closeAllConnections();
      silent.close();
    }
  });
});
