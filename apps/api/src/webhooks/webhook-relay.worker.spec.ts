import { describe, expect, it, vi } from "vitest";
import { until } from "../../../../tests/support/until.js";
import type { AppConfig } from "../common/config.js";
import { RELAY_BATCH, type WebhookRelayService } from "./webhook-relay.service.js";
import { RELAY_PASS_SPACING_MS, WebhookRelayWorker } from "./webhook-relay.worker.js";

function workerOver(relayOnce: () => Promise<number>, relayIntervalMs = 10) {
  const notifications: { onNewEvents?: () => void } = {};
  const relay = {
    relayOnce: vi.fn(relayOnce),
    listenForEvents: vi.fn(async (onNewEvents: () => void) => {
      notifications.onNewEvents = onNewEvents;
      return { isOpen: true, close: async () => {} };
    }),
  };
  const config = { webhooks: { relayIntervalMs, relayListens: true } } as AppConfig;
  const worker = new WebhookRelayWorker(relay as unknown as WebhookRelayService, config);
  return { worker, relay, notifications };
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

  it("relays as soon as new events are notified, without waiting for the interval", async () => {
    const { worker, relay, notifications } = workerOver(async () => 0, 60_000);
    worker.onApplicationBootstrap();
    await until(() => notifications.onNewEvents !== undefined, { what: "the relay listening" });
    notifications.onNewEvents?.();
    await until(() => relay.relayOnce.mock.calls.length === 2, { what: "the pass after the notification" });
    expect(relay.listenForEvents).toHaveBeenCalledTimes(1);
    await worker.onApplicationShutdown();
  });

  it("gathers the events notified soon after a pass into the next one, a pass's spacing later", async () => {
    vi.useFakeTimers();
    try {
      const { worker, relay, notifications } = workerOver(async () => 0, 60_000);
      worker.onApplicationBootstrap();
      await vi.advanceTimersByTimeAsync(0);
      expect(relay.relayOnce).toHaveBeenCalledTimes(1);
      // Events committed one by one, as a generation's are: each notified on its own.
      for (let event = 0; event < 5; event += 1) {
        notifications.onNewEvents?.();
        await vi.advanceTimersByTimeAsync(RELAY_PASS_SPACING_MS / 10);
      }
      expect(relay.relayOnce).toHaveBeenCalledTimes(1);
      await vi.advanceTimersByTimeAsync(RELAY_PASS_SPACING_MS);
      expect(relay.relayOnce).toHaveBeenCalledTimes(2);
      await worker.onApplicationShutdown();
    } finally {
      vi.useRealTimers();
    }
  });
});
