import { verifyWebhook } from "@imagehub/client";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seriousAccessibilityViolations } from "./support/browser.js";
import { readJson } from "./support/json.js";
import { until } from "./support/until.js";
import {
  deleteWithConfirmation,
  descriptionOf,
  openWebArea,
  PHONE_VIEWPORT,
  type SignedInOwner,
  sidewaysOverflow,
  type WebArea,
} from "./support/web-area.js";
import { WebhookReceiver } from "./support/webhook-receiver.js";

describe("the webhooks page, in a browser", () => {
  let web: WebArea;
  const receivers: WebhookReceiver[] = [];

  beforeAll(async () => {
    // The receivers listen on 127.0.0.1 over plain HTTP, which a production server refuses.
    web = await openWebArea({ env: { WEBHOOK_ALLOW_HTTP: "true", WEBHOOK_ALLOW_PRIVATE: "true" } });
  });
  afterAll(async () => {
    await Promise.all(receivers.map((receiver) => receiver.stop()));
    await web?.close();
  });

  async function startReceiver(responder?: ConstructorParameters<typeof WebhookReceiver>[0]) {
    const receiver = await new WebhookReceiver(responder).start();
    receivers.push(receiver);
    return receiver;
  }

  /** Creates a webhook with the page's form; answers the secret the page shows once. */
  async function createWebhook(page: Page, url: string, events: string[]): Promise<string> {
    await page.getByRole("link", { name: "Webhooks" }).click();
    await page.getByLabel("Endpoint URL").fill(url);
    for (const checkbox of await page.getByRole("checkbox").all()) {
      const type = await checkbox.getAttribute("value");
      await checkbox.setChecked(events.includes(type ?? ""));
    }
    await page.getByRole("button", { name: "Create webhook" }).click();
    await page.getByRole("article", { name: url }).waitFor();
    return (await page.getByTestId("secret").textContent()) ?? "";
  }

  async function webhooksOf(owner: SignedInOwner) {
    return (await readJson(await web.sessionRequest(owner, "/account/webhooks"))).webhooks;
  }

  it("creates a webhook whose test event reaches the receiver, signed with the secret shown once", async () => {
    const owner = await web.signedInOwner();
    const receiver = await startReceiver();
    const secret = await createWebhook(owner.page, receiver.url, ["test", "print.completed"]);
    expect(secret).toMatch(/^whsec_/);
    const card = owner.page.getByRole("article", { name: receiver.url });
    await expect(card.getByText("enabled", { exact: true }).isVisible()).resolves.toBe(true);
    expect(await seriousAccessibilityViolations(owner.page)).toEqual([]);

    await card.getByRole("button", { name: "Send a test event" }).click();
    const [delivery] = await receiver.waitFor(1);
    if (!delivery) throw new Error("no delivery");
    const envelope = verifyWebhook(delivery.body, delivery.headers, secret);
    expect(envelope.type).toBe("test");
    expect(() => verifyWebhook(delivery.body, delivery.headers, `whsec_${"A".repeat(44)}`)).toThrow(
      "webhook not verified",
    );
    // The attempt appears in the deliveries with the receiver's status.
    await card
      .getByRole("row", { name: new RegExp(delivery.headers["webhook-id"] as string) })
      .getByText("200")
      .waitFor();
    expect(await seriousAccessibilityViolations(owner.page)).toEqual([]);
    // On a phone the page fits its width; only the deliveries table scrolls, inside its own box.
    await owner.page.setViewportSize(PHONE_VIEWPORT);
    await expect(sidewaysOverflow(owner.page)).resolves.toBe(0);
    expect(await webhooksOf(owner)).toMatchObject([
      { url: receiver.url, events: ["test", "print.completed"], apiKeyId: null, disabled: false },
    ]);
  });

  it("shows a webhook disabled by a 410 and why, re-enables it with the missed event replayed, and deletes it", async () => {
    const owner = await web.signedInOwner();
    const receiver = await startReceiver(() => ({ status: 410 }));
    const secret = await createWebhook(owner.page, receiver.url, ["test"]);
    const card = owner.page.getByRole("article", { name: receiver.url });
    await card.getByRole("button", { name: "Send a test event" }).click();
    const [refused] = await receiver.waitFor(1);
    await until(async () => (await webhooksOf(owner))[0]?.disabled === true, {
      what: "the webhook disabled",
    });

    await owner.page.reload();
    await card.getByText("disabled", { exact: true }).waitFor();
    await expect(card.textContent()).resolves.toContain("the endpoint answered 410 Gone");
    await expect(card.getByRole("button", { name: "Send a test event" }).count()).resolves.toBe(0);
    expect(await seriousAccessibilityViolations(owner.page)).toEqual([]);

    receiver.answerWith(() => ({ status: 204 }));
    await card.getByLabel("Also send again the events it missed").check();
    await card.getByRole("button", { name: "Re-enable" }).click();
    await card.getByText("enabled", { exact: true }).waitFor();
    const [, replayed] = await receiver.waitFor(2);
    if (!refused || !replayed) throw new Error("no deliveries");
    expect(replayed.headers["webhook-id"]).toBe(refused.headers["webhook-id"]);
    expect(verifyWebhook(replayed.body, replayed.headers, secret).type).toBe("test");

    await deleteWithConfirmation(card, "Yes, delete this webhook");
    await owner.page.getByText("No webhook yet.").waitFor();
    expect(await webhooksOf(owner)).toEqual([]);
  });

  it("shows the API's own rules beside the fields, before sending anything", async () => {
    const owner = await web.signedInOwner();
    const { page } = owner;
    await page.getByRole("link", { name: "Webhooks" }).click();
    await page.getByLabel("Endpoint URL").fill("ftp://example.test/hooks");
    for (const checkbox of await page.getByRole("checkbox").all()) await checkbox.uncheck();
    await page.getByRole("button", { name: "Create webhook" }).click();
    const url = page.getByLabel("Endpoint URL");
    await expect(url.getAttribute("aria-invalid")).resolves.toBe("true");
    await expect(descriptionOf(url)).resolves.toMatch(/URL/i);
    await page.getByText(/^Events: /).waitFor();
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    expect(await webhooksOf(owner)).toEqual([]);
  });

  it("refuses every change on the webhook routes without the session's CSRF token", async () => {
    const owner = await web.signedInOwner();
    const receiver = await startReceiver();
    const created = await readJson(
      await web.sessionRequest(owner, "/account/webhooks", { method: "POST", json: { url: receiver.url } }),
    );
    await web.expectRefusedWithoutCsrfToken(owner, [
      ["POST", "/account/webhooks", { url: receiver.url }],
      ["POST", `/account/webhooks/${created.webhookId}/test`, undefined],
      ["POST", `/account/webhooks/${created.webhookId}/enable`, { replay: true }],
      ["DELETE", `/account/webhooks/${created.webhookId}`, undefined],
    ]);
    expect(await webhooksOf(owner)).toHaveLength(1);
    expect(receiver.received).toEqual([]);
  });

  it("never shows or reaches another account's webhooks", async () => {
    const first = await web.signedInOwner();
    const second = await web.signedInOwner();
    const receiver = await startReceiver();
    await createWebhook(first.page, receiver.url, ["test"]);
    const [webhook] = await webhooksOf(first);

    await second.page.getByRole("link", { name: "Webhooks" }).click();
    await second.page.getByText("No webhook yet.").waitFor();
    expect(await second.page.getByText(receiver.url).count()).toBe(0);
    const reaches: [string, string][] = [
      ["GET", `/account/webhooks/${webhook.id}/attempts`],
      ["POST", `/account/webhooks/${webhook.id}/test`],
      ["POST", `/account/webhooks/${webhook.id}/enable`],
      ["DELETE", `/account/webhooks/${webhook.id}`],
    ];
    for (const [method, path] of reaches) {
      const answer = await web.sessionRequest(second, path, {
        method,
        json: path.endsWith("/enable") ? {} : undefined,
      });
      expect(answer.status, `${method} ${path}`).toBe(404);
      expect(await readJson(answer)).toMatchObject({
        message: [`no webhook with id ${webhook.id} in this account`],
      });
    }
    expect(await webhooksOf(second)).toEqual([]);
    expect(await webhooksOf(first)).toHaveLength(1);
    expect(receiver.received).toEqual([]);
  });
});
