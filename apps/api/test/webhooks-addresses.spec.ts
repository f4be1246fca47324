import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readJson } from "../../../tests/support/json.js";
import { startTestApi, type TestApi } from "../../../tests/support/test-api.js";
import { until } from "../../../tests/support/until.js";
import { WebhookReceiver } from "../../../tests/support/webhook-receiver.js";
import { webhooksOf } from "../../../tests/support/webhooks-api.js";

describe("webhook URLs inside the network", () => {
  let strict: TestApi;
  let permissive: TestApi;
  const endpoint = new WebhookReceiver();

  beforeAll(async () => {
    [strict, permissive] = await Promise.all([
      startTestApi({ env: { WEBHOOK_RELAY_INTERVAL_MS: "20" } }),
      startTestApi({ env: { WEBHOOK_ALLOW_PRIVATE: "true" } }),
    ]);
    await endpoint.start();
  });
  afterAll(async () => {
    await Promise.all([strict.close(), permissive.close(), endpoint.stop()]);
  });

  it.each([
    ["http://example.com/hooks", "url: must use https"],
    ["https://127.0.0.1/hooks", "url: 127.0.0.1 is a loopback address, which cannot receive webhooks"],
    // What an internal host resolves to is not named: the caller learns only that it is internal.
    ["https://localhost/hooks", "url: localhost is an internal host, which cannot receive webhooks"],
    ["https://example.com:0/hooks", "url: port 0 cannot receive webhooks"],
    [
      "https://user:pass@example.com/hooks",
      "url: must not hold a user name or password; check each delivery's signature instead",
    ],
    [
      "https://token@example.com/hooks",
      "url: must not hold a user name or password; check each delivery's signature instead",
    ],
    ["https://[::1]/hooks", "url: ::1 is a loopback address, which cannot receive webhooks"],
    ["https://10.0.0.8/hooks", "url: 10.0.0.8 is a private address, which cannot receive webhooks"],
    ["https://192.168.1.20/hooks", "url: 192.168.1.20 is a private address, which cannot receive webhooks"],
    [
      "https://169.254.169.254/latest",
      "url: 169.254.169.254 is a cloud metadata address, which cannot receive webhooks",
    ],
    ["https://[fe80::1]/hooks", "url: fe80::1 is a link-local address, which cannot receive webhooks"],
    [
      "https://[::ffff:7f00:1]/hooks",
      "url: ::ffff:7f00:1 embeds 127.0.0.1, a loopback address, which cannot receive webhooks",
    ],
    ["https://239.1.2.3/hooks", "url: 239.1.2.3 is a multicast address, which cannot receive webhooks"],
    ["https://[::7f00:1]/hooks", /^url: ::7f00:1 embeds 127\.0\.0\.1, a loopback address/],
    ["https://[::127.0.0.1]/hooks", /^url: ::7f00:1 embeds 127\.0\.0\.1, a loopback address/],
    ["https://[::ffff:0:7f00:1]/hooks", /^url: ::ffff:0:7f00:1 embeds 127\.0\.0\.1, a loopback address/],
    ["https://[::ffff:10.1.2.3]/hooks", /^url: ::ffff:a01:203 embeds 10\.1\.2\.3, a private address/],
    ["https://[2002:7f00:1::]/hooks", /^url: 2002:7f00:1:: embeds 127\.0\.0\.1, a loopback address/],
    ["https://[2002:808:808::]/hooks", /^url: 2002:808:808:: is a 6to4 address/],
    ["https://[64:ff9b::7f00:1]/hooks", /^url: 64:ff9b::7f00:1 embeds 127\.0\.0\.1, a loopback address/],
    [
      "https://[64:ff9b::a9fe:a9fe]/hooks",
      /^url: 64:ff9b::a9fe:a9fe embeds 169\.254\.169\.254, a cloud metadata/,
    ],
    ["https://[64:ff9b:1::8.8.8.8]/hooks", /^url: 64:ff9b:1::808:808 is a local-use translation address/],
    [
      "https://[2001:0:4136:e378:8000:63bf:80ff:fffe]/hooks",
      /^url: 2001:0:4136:e378:8000:63bf:80ff:fffe embeds 127\.0\.0\.1, a loopback address/,
    ],
    ["https://[2001:0:4136:e378:8000:63bf:f7f7:f7f7]/hooks", /is a Teredo address/],
    ["https://192.0.2.10/hooks", /^url: 192\.0\.2\.10 is a documentation address/],
    ["https://198.51.100.7/hooks", /^url: 198\.51\.100\.7 is a documentation address/],
    ["https://203.0.113.9/hooks", /^url: 203\.0\.113\.9 is a documentation address/],
    ["https://[2001:db8::1]/hooks", /^url: 2001:db8::1 is a documentation address/],
    ["https://[3fff::1]/hooks", /^url: 3fff::1 is a documentation address/],
    ["https://198.18.0.1/hooks", /^url: 198\.18\.0\.1 is a benchmarking address/],
    ["https://[2001:2::1]/hooks", /^url: 2001:2::1 is a benchmarking address/],
    ["https://100.64.0.1/hooks", /^url: 100\.64\.0\.1 is a shared \(carrier-grade NAT\) address/],
    ["https://192.0.0.9/hooks", /^url: 192\.0\.0\.9 is a protocol assignment address/],
    ["https://192.88.99.1/hooks", /^url: 192\.88\.99\.1 is a 6to4 relay address/],
    ["https://192.31.196.1/hooks", /^url: 192\.31\.196\.1 is a reserved AS112 address/],
    ["https://192.52.193.1/hooks", /^url: 192\.52\.193\.1 is a reserved AMT address/],
    ["https://192.175.48.1/hooks", /^url: 192\.175\.48\.1 is a reserved AS112 address/],
    ["https://255.255.255.255/hooks", /^url: 255\.255\.255\.255 is a broadcast address/],
    ["https://[100::1]/hooks", /^url: 100::1 is a discard-only address/],
    ["https://[2620:4f:8000::1]/hooks", /^url: 2620:4f:8000::1 is a reserved AS112 address/],
    ["https://[5f00::1]/hooks", /^url: 5f00::1 is a segment routing address/],
    ["https://[fec0::1]/hooks", /^url: fec0::1 is a site-local address/],
    ["https://no-such-host.invalid/hooks", "url: host no-such-host.invalid does not resolve"],
  ])("refuses %s", async (url, message) => {
    const { apiKey } = await strict.createAccount();
    const response = await webhooksOf(() => strict).send("POST", "/v1/api-keys/webhook/subscribe", apiKey, {
      url,
    });
    expect(response.status).toBe(400);
    expect((await readJson(response)).message).toEqual([
      typeof message === "string" ? message : expect.stringMatching(message),
    ]);
  });

  it("accepts private addresses where configured", async () => {
    const { apiKey } = await permissive.createAccount();
    await webhooksOf(() => permissive).subscribe(apiKey, { url: "https://127.0.0.1/hooks" });
  });

  it("refuses them again at delivery, when the address changed after subscription", async () => {
    const hooks = webhooksOf(() => strict);
    const { apiKey, accountId, apiKeyId } = await strict.createAccount();
    // As if DNS had pointed these hosts elsewhere when they were subscribed.
    const port = new URL(endpoint.url).port;
    const prisma = strict.resources.database.prisma;
    const [byName, byAddress] = await Promise.all(
      [`https://localhost:${port}/hooks`, `https://127.0.0.1:${port}/hooks`].map((url) =>
        prisma.webhook.create({
          data: {
            accountId,
            apiKeyId,
            url,
            events: ["test"],
            secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
          },
        }),
      ),
    );
    for (const webhook of [byName, byAddress]) await hooks.test(apiKey, webhook?.id as string);
    for (const [webhook, refused] of [
      [byName, /^refused: localhost is an internal host$/],
      [byAddress, /^refused: 127\.0\.0\.1 is a loopback address$/],
    ] as const) {
      await until(async () => (await hooks.attempts(apiKey, webhook?.id as string)).length >= 1);
      expect((await hooks.attempts(apiKey, webhook?.id as string))[0]?.error).toMatch(refused);
    }
    expect(endpoint.received).toHaveLength(0);
  });
});
