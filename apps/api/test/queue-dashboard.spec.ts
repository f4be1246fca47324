import { type Job, Worker } from "bullmq";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readJson } from "../../../tests/support/json.js";
import { startTestApi, type TestApi } from "../../../tests/support/test-api.js";
import { loadConfig } from "../src/common/config.js";
import { JobRepository } from "../src/jobs/job.repository.js";

const ADMIN_TOKEN = "admin-token-for-tests";
const bearer = { authorization: `Bearer ${ADMIN_TOKEN}` };

describe("queue dashboard", () => {
  let api: TestApi;

  beforeAll(async () => {
    // No worker runs in this API: a job stays where the test puts it.
    api = await startTestApi({
      env: { ROLE: "api", QUEUE_DASHBOARD: "true", ADMIN_TOKEN, TRUST_PROXY: "true" },
    });
  });
  afterAll(() => api.close());

  const queueNamed = (name: string) =>
    api.app
      .get(JobRepository)
      .allQueues()
      .find((queue) => queue.name === name);

  it("refuses its API without the admin token, in the error body", async () => {
    const refused = await api.request("/admin/queues/api/queues");
    expect(refused.status).toBe(401);
    expect(await readJson(refused)).toEqual({
      statusCode: 401,
      error: "Unauthorized",
      message: ["the queue dashboard needs Authorization: Bearer <ADMIN_TOKEN> or a signed-in session"],
    });
    const wrong = await api.request("/admin/queues/api/queues", {
      headers: { authorization: "Bearer nope" },
    });
    expect(wrong.status).toBe(401);
  });

  it("lists every queue for the admin token", async () => {
    const response = await api.request("/admin/queues/api/queues", { headers: bearer });
    expect(response.status).toBe(200);
    const { queues } = (await response.json()) as { queues: { name: string }[] };
    expect(queues.map((queue) => queue.name).sort()).toEqual(["credits", "generations", "webhooks"]);
  });

  it("signs a browser in with the token, then serves the page to its cookie", async () => {
    const page = await api.request("/admin/queues", { redirect: "manual" });
    expect(page.status).toBe(302);
    expect(page.headers.get("location")).toBe("/admin/queues/login");

    const signIn = (token: string) =>
      api.request("/admin/queues/login", {
        method: "POST",
        redirect: "manual",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ token }).toString(),
      });
    expect((await signIn("not-the-token")).status).toBe(401);
    const signedIn = await signIn(ADMIN_TOKEN);
    expect(signedIn.status).toBe(303);
    const cookie = signedIn.headers.get("set-cookie") ?? "";
    expect(cookie).toMatch(/HttpOnly; SameSite=Strict/);
    expect(cookie).toContain("Path=/admin/queues");

    const session = cookie.split(";")[0] ?? "";
    const served = await api.request("/admin/queues", { headers: { cookie: session } });
    expect(served.status).toBe(200);
    const html = await served.text();
    // The page's own script, as the browser fetches it next (relative to its <base href>).
    expect(html).toContain('<base href="/admin/queues/"');
    const script = /<script[^>]+src="([^"]+)"/.exec(html)?.[1] ?? "";
    expect((await api.request(`/admin/queues/${script}`, { headers: { cookie: session } })).status).toBe(200);
    const forged = `${session.split(".")[0]}.forged`;
    expect((await api.request("/admin/queues/api/queues", { headers: { cookie: forged } })).status).toBe(401);
  });

  it("makes an address that keeps sending wrong tokens wait, by form or header, and no other", async () => {
    const signInFrom = (address: string, token: string) =>
      api.request("/admin/queues/login", {
        method: "POST",
        redirect: "manual",
        headers: { "content-type": "application/x-www-form-urlencoded", "x-forwarded-for": address },
        body: new URLSearchParams({ token }).toString(),
      });
    const statuses: number[] = [];
    for (let guess = 0; guess < 8; guess++)
      statuses.push((await signInFrom("203.0.113.9", `guess-${guess}`)).status);
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429, 429, 429]);
    const waiting = await signInFrom("203.0.113.9", ADMIN_TOKEN);
    expect(waiting.status).toBe(429);
    expect(Number(waiting.headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await readJson(waiting)).message[0]).toMatch(
      /^too many wrong admin tokens from this address; try again in \d+ s$/,
    );
    const byHeader = await api.request("/admin/queues/api/queues", {
      headers: { ...bearer, "x-forwarded-for": "203.0.113.9" },
    });
    expect(byHeader.status).toBe(429);
    expect((await signInFrom("203.0.113.10", ADMIN_TOKEN)).status).toBe(303);
  });

  it("pauses and resumes a queue", async () => {
    const generations = queueNamed("generations");
    const put = (path: string) =>
      api.request(`/admin/queues/api/queues/${path}`, { method: "PUT", headers: bearer });
    expect((await put("generations/pause")).status).toBe(200);
    expect(await generations?.isPaused()).toBe(true);
    expect((await put("generations/resume")).status).toBe(200);
    expect(await generations?.isPaused()).toBe(false);
  });

  it("re-queues a failed job when retried through its API", async () => {
    const credits = queueNamed("credits");
    if (!credits) throw new Error("no credits queue");
    // A worker that fails every job, standing in for a run that went wrong.
    const failing = new Worker(
      "credits",
      async () => {
        throw new Error("the bucket table was locked");
      },
      { connection: api.resources.redis.duplicate(), prefix: api.resources.redisPrefix },
    );
    const job = await credits.add("credits.renew", {});
    await new Promise<void>((resolve) =>
      failing.on("failed", (failed: Job | undefined) => failed?.id === job.id && resolve()),
    );
    await failing.close();
    expect(await job.getState()).toBe("failed");

    const retried = await api.request(`/admin/queues/api/queues/credits/${job.id}/retry`, {
      method: "PUT",
      headers: bearer,
    });
    expect(retried.status).toBe(204);
    expect(await credits.getJobState(job.id as string)).toBe("waiting");
  });
});

describe("queue dashboard configuration", () => {
  it("is not mounted unless QUEUE_DASHBOARD=true", async () => {
    const api = await startTestApi({ env: { ROLE: "api", ADMIN_TOKEN } });
    try {
      expect((await api.request("/admin/queues/api/queues", { headers: bearer })).status).toBe(404);
    } finally {
      await api.close();
    }
  });

  it("refuses to start with QUEUE_DASHBOARD=true and no ADMIN_TOKEN", () => {
    expect(() => loadConfig({ QUEUE_DASHBOARD: "true" })).toThrow(
      "ADMIN_TOKEN: required when QUEUE_DASHBOARD=true",
    );
  });
});
