import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WebhookReceiver } from "../../../../tests/support/webhook-receiver.js";
import type { AppConfig } from "../common/config.js";
import { WebhookSender } from "./webhook-sender.js";

const secret = `whsec_${Buffer.alloc(32, 1).toString("base64")}`;
const message = (id: string) => ({ id, body: JSON.stringify({ id, type: "test", data: {} }) });

function senderWith(rules: { allowPrivate: boolean }): WebhookSender {
  return new WebhookSender({
    webhooks: { ...rules, allowHttp: true, timeoutSeconds: 5, concurrency: 10 },
  } as AppConfig);
}

describe("WebhookSender", () => {
  const endpoint = new WebhookReceiver();
  const strict = senderWith({ allowPrivate: false });
  const permissive = senderWith({ allowPrivate: true });

  beforeAll(() => endpoint.start());
  afterAll(() => Promise.all([endpoint.stop(), strict.onModuleDestroy(), permissive.onModuleDestroy()]));

  it("refuses a forbidden address written in the URL at every attempt, its verdict kept", async () => {
    for (const id of ["first", "second"]) {
      const outcome = await strict.send({ url: endpoint.url, secret }, message(id));
      expect(outcome).toMatchObject({ delivered: false, error: "refused: 127.0.0.1 is a loopback address" });
    }
    expect(endpoint.received).toHaveLength(0);
  });

  it("checks a host name's addresses as each connection is made, not once per URL", async () => {
    const url = endpoint.url.replace("127.0.0.1", "localhost");
    for (const id of ["first", "second"]) {
      const outcome = await strict.send({ url, secret }, message(id));
      expect(outcome).toMatchObject({ delivered: false, error: "refused: localhost is an internal host" });
    }
    expect(endpoint.received).toHaveLength(0);
  });

  it("answers the status and the headers a failure reads, the body sent as given", async () => {
    endpoint.answerWith(() => ({ status: 503, headers: { "retry-after": "7" } }));
    const outcome = await permissive.send({ url: `${endpoint.url}?source=spec`, secret }, message("busy"));
    expect(outcome).toMatchObject({ delivered: false, statusCode: 503, retryAfterSeconds: 7 });
    expect(endpoint.received.at(-1)?.body).toBe(message("busy").body);
    expect(endpoint.received.at(-1)?.headers["webhook-id"]).toBe("busy");
  });
});
