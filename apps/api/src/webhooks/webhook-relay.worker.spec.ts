import { describe, expect, it, vi } from "vitest";
import { until } from "../../../../tests/support/until.js";
import type { AppConfig } from "../common/config.js";
import { RELAY_BATCH, type WebhookRelayService } from "./webhook-relay.service.js";
import { WebhookRelayWorker } from "./webhook-relay.worker.js";

function workerOver(relayOnce: () => Promise<number>) {
  const relay = { relayOnce: vi.fn(relayOnce) };
  const config = { webhooks: { relayIntervalMs: 10 } } as AppConfig;
  return { worker: new WebhookRelayWorker(relay as unknown as WebhookRelayService, config), relay };
}

describe("WebhookRelayWorker", () => {
  it("relays from start-up until shutdown, which waits for the batch under way", async () => {
    let isRelaying = false;
    const { worker, relay } = workerOver(async () => {
      isRelaying = true;
      await Promise.resolve();
      isRelaying = false;
      return 0;
    });
    worker.onApplicationBootstrap();
    await until(() => relay.relayOnce.mock.calls.length >= 3, { what: "three passes of the relay" });
    await worker.onApplicationShutdown();
    const passes = relay.relayOnce.mock.calls.length;
    expect(isRelaying).toBe(false);
    await new Promise((resolve) => setImmediate(resolve));
    expect(relay.relayOnce).toHaveBeenCalledTimes(passes);
  });

  it("goes on after a failed pass, and relays a full batch's successor at once", async () => {
    const answers = [Promise.reject(new Error("the database is away")), Promise.resolve(RELAY_BATCH)];
    for (const answer of answers) answer.catch(() => {});
    const { worker, relay } = workerOver(() => answers.shift() ?? Promise.resolve(0));
    worker.onApplicationBootstrap();
    await until(() => relay.relayOnce.mock.calls.length >= 3, { what: "the passes after a failure" });
    await worker.onApplicationShutdown();
  });
});
