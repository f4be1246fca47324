import { Injectable, Module } from "@nestjs/common";
import { NestFactory } from "@nestjs/core";
import { type Job, QueueEvents } from "bullmq";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { insertDeferredImage } from "../../../tests/support/images.js";
import { readJson } from "../../../tests/support/json.js";
import { startTestApi, type TestApi } from "../../../tests/support/test-api.js";
import { until } from "../../../tests/support/until.js";
import { AccountsRepository } from "../src/accounts/accounts.repository.js";
import { renewCreditsJob } from "../src/accounts/credit-renewal.job.js";
import { CreditsService } from "../src/accounts/credits.service.js";
import { createWorkerContext } from "../src/app.factory.js";
import { JOBS } from "../src/app.jobs.js";
import { indexLeftoverImagesJob } from "../src/catalogue/catalogue.jobs.js";
import { CoreModule } from "../src/common/core.module.js";
import { JobRepository } from "../src/jobs/job.repository.js";
import type { JobDefinition } from "../src/jobs/job-definition.js";
import { JobHandlers } from "../src/jobs/job-handlers.js";
import { JobsModule } from "../src/jobs/jobs.module.js";
import { OnJob } from "../src/jobs/on-job.decorator.js";
import { MetricsModule } from "../src/metrics/metrics.module.js";

const DAY = 24 * 3600_000;

/**
 * Listens for the events of `definition`'s queue (ready before `trigger` runs, so no completion is missed),
 * runs `trigger`, which returns the id of the job to wait for, and waits until a worker has finished it.
 */
async function finishedJob(
  api: TestApi,
  trigger: () => Promise<string>,
  definition: JobDefinition = renewCreditsJob,
): Promise<Job> {
  const queue = api.app.get(JobRepository).queue(definition);
  const events = new QueueEvents(queue.name, {
    connection: api.resources.redis.duplicate(),
    prefix: queue.opts.prefix,
  });
  try {
    await events.waitUntilReady();
    const job = (await queue.getJob(await trigger())) as Job;
    await job.waitUntilFinished(events, 20_000);
    return (await queue.getJob(job.id as string)) as Job;
  } finally {
    await events.close();
  }
}

/** Enqueues the job (a renewal by default) through the app's own repository; answers what the worker returned. */
async function runJob(api: TestApi, definition: JobDefinition = renewCreditsJob): Promise<unknown> {
  const jobs = api.app.get(JobRepository);
  const job = await finishedJob(api, () => jobs.enqueue(definition, {}), definition);
  return job.returnvalue;
}

describe("credit renewal (credits.renew)", () => {
  let api: TestApi;

  beforeAll(async () => {
    api = await startTestApi();
  });
  afterAll(() => api.close());

  async function bucketOf(email: string) {
    return api.resources.database.prisma.creditBucket.findFirstOrThrow({ where: { account: { email } } });
  }

  it("restores a due bucket to its creditTotal and moves its renewal date to the next month ahead", async () => {
    const { apiKey } = await api.createAccount({
      email: "due@example.test",
      credits: { f_images: 10 },
      renewsMonthly: true,
    });
    await api.resources.database.prisma.creditLedgerEntry.create({
      data: {
        bucketId: (await bucketOf("due@example.test")).id,
        amount: -7,
        reason: "purchase",
        actor: "test",
      },
    });
    const lastRenewal = new Date(Date.now() - 40 * DAY);
    await api.resources.database.prisma.creditBucket.updateMany({
      where: { account: { email: "due@example.test" } },
      data: { renewsAt: lastRenewal },
    });

    expect(await runJob(api)).toMatchObject({ renewed: expect.any(Number) });

    const { credits } = await readJson(await api.request("/v1/credit", { apiKey }));
    expect(credits).toEqual([{ type: "f_images", credit: 10, creditTotal: 10, unlimited: false }]);
    const renewsAt = (await bucketOf("due@example.test")).renewsAt as Date;
    expect(renewsAt.getTime()).toBeGreaterThan(Date.now());
    expect(renewsAt.getTime()).toBeLessThan(Date.now() + 31 * DAY);
    expect(renewsAt.getUTCDate()).toBe(lastRenewal.getUTCDate());
  });

  it("renews once however often the job runs", async () => {
    await api.createAccount({ email: "once@example.test", credits: { f_images: 5 }, renewsMonthly: true });
    const bucket = await bucketOf("once@example.test");
    const prisma = api.resources.database.prisma;
    await prisma.creditLedgerEntry.create({
      data: { bucketId: bucket.id, amount: -5, reason: "purchase", actor: "test" },
    });
    await prisma.creditBucket.update({
      where: { id: bucket.id },
      data: { renewsAt: new Date(Date.now() - DAY) },
    });
    await runJob(api);
    await runJob(api);
    const renewals = await prisma.creditLedgerEntry.findMany({
      where: { bucketId: bucket.id, reason: "renewal" },
    });
    expect(renewals.map((entry) => entry.amount)).toEqual([5]);
  });

  it("leaves a bucket above its creditTotal, and buckets that never renew, as they are", async () => {
    await api.createAccount({ email: "rich@example.test", credits: { f_images: 5 }, renewsMonthly: true });
    await api.createAccount({ email: "never@example.test", credits: { f_images: 5 } });
    const prisma = api.resources.database.prisma;
    const rich = await bucketOf("rich@example.test");
    await prisma.creditLedgerEntry.create({
      data: { bucketId: rich.id, amount: 20, reason: "grant", actor: "test" },
    });
    await prisma.creditBucket.update({
      where: { id: rich.id },
      data: { renewsAt: new Date(Date.now() - DAY) },
    });
    await runJob(api);
    expect(await prisma.creditLedgerEntry.count({ where: { bucketId: rich.id, reason: "renewal" } })).toBe(0);
    expect((await bucketOf("rich@example.test")).renewsAt?.getTime()).toBeGreaterThan(Date.now());
    expect((await bucketOf("never@example.test")).renewsAt).toBeNull();
  });

  it("is scheduled every ten minutes by a job scheduler when workers start", async () => {
    const schedulers = await api.app.get(JobRepository).queue(renewCreditsJob).getJobSchedulers();
    expect(schedulers).toContainEqual(expect.objectContaining({ key: "credits.renew", every: 600_000 }));
  });
});

describe("images a stopped bulk load left pending (catalogue.index-leftovers)", () => {
  let api: TestApi;
  let apiKey: string;

  beforeAll(async () => {
    // Rows are written straight into the database between searches: answers must not be reused here.
    api = await startTestApi({ env: { SEARCH_CACHE_SECONDS: "0" } });
    ({ apiKey } = await api.createAccount({ email: "leftovers@example.test" }));
  });
  afterAll(() => api.close());

  const writeDeferred = (title: string) => insertDeferredImage(api.resources.database.prisma, title);

  const found = async (search: string) => {
    const response = await api.request("/v1/images/search", { apiKey, method: "POST", json: { search } });
    return ((await readJson(response)) as { images: { id: string }[] }).images.map((image) => image.id);
  };
  const pending = async () =>
    (
      await api.resources.database.prisma.$queryRaw<{ id: string }[]>`
        SELECT image_id::text AS id FROM search_index_pending ORDER BY pending_since`
    ).map((row) => row.id);

  it("leaves alone the images a load that runs will flush itself", async () => {
    const recent = await writeDeferred("A lapwing over the marsh");
    expect(await runJob(api, indexLeftoverImagesJob)).toEqual({ indexed: 0 });
    expect(await pending()).toEqual([recent]);
    expect(await found("lapwing")).toEqual([]);
  });

  it("indexes every pending image once one has waited a minute: a stopped load's are searchable", async () => {
    const [recent] = await pending();
    const left = await writeDeferred("A kingfisher on a branch");
    await api.resources.database.prisma.$executeRaw`
      UPDATE search_index_pending SET pending_since = now() - interval '61 seconds' WHERE image_id = ${left}::uuid`;
    expect(await runJob(api, indexLeftoverImagesJob)).toEqual({ indexed: 2 });
    expect(await pending()).toEqual([]);
    expect(await found("kingfisher")).toEqual([left]);
    expect(await found("lapwing")).toEqual([recent]);
  });

  it("is scheduled every 30 s by a job scheduler when workers start", async () => {
    const schedulers = await api.app.get(JobRepository).queue(indexLeftoverImagesJob).getJobSchedulers();
    expect(schedulers).toContainEqual(
      expect.objectContaining({ key: "catalogue.index-leftovers", every: 30_000 }),
    );
  });
});

describe("job schedules", () => {
  it("are registered again by a running worker when Redis lost them", async () => {
    const api = await startTestApi({ env: { JOB_SCHEDULE_REFRESH_MS: "100" } });
    try {
      const queue = api.app.get(JobRepository).queue(renewCreditsJob);
      expect(await queue.removeJobScheduler("credits.renew")).toBe(true);
      const renewal = async () =>
        (await queue.getJobSchedulers()).find((scheduler) => scheduler.key === "credits.renew");
      await until(async () => (await renewal()) !== undefined, {
        timeoutMs: 10_000,
        what: "the renewal's schedule registered again",
      });
      expect(await renewal()).toMatchObject({ every: 600_000 });
    } finally {
      await api.close();
    }
  });
});

describe("roles", () => {
  it("leaves jobs queued by an api process to worker processes", async () => {
    const api = await startTestApi({ env: { ROLE: "api" } });
    try {
      const jobs = api.app.get(JobRepository);
      const id = await jobs.enqueue(renewCreditsJob, {});
      expect(await (await jobs.queue(renewCreditsJob).getJob(id))?.getState()).toBe("waiting");
      expect(() => api.app.get(JobHandlers), "an api process runs no jobs").toThrow();
      let worker: Awaited<ReturnType<typeof createWorkerContext>> | undefined;
      const job = await finishedJob(api, async () => {
        worker = await createWorkerContext({
          ...api.resources,
          config: { ...api.resources.config, role: "worker" },
        });
        return id;
      });
      await worker?.close();
      expect(await job.getState()).toBe("completed");
    } finally {
      await api.close();
    }
  });
});

describe("job handlers", () => {
  let api: TestApi;

  beforeAll(async () => {
    api = await startTestApi({ env: { ROLE: "api" } });
  });
  afterAll(() => api.close());

  async function startWorkerWith(...providers: (new (...args: never[]) => unknown)[]) {
    @Module({ providers })
    class Handlers {}
    const resources = { ...api.resources, config: { ...api.resources.config, role: "worker" as const } };
    @Module({
      imports: [
        CoreModule.forResources(resources),
        MetricsModule.forConfig(resources.config),
        JobsModule.forResources(resources, JOBS),
        Handlers,
      ],
    })
    class WorkerModule {}
    const context = await NestFactory.createApplicationContext(WorkerModule, {
      logger: false,
      abortOnError: false,
    });
    await context.close();
  }

  it("refuse to start when a job has no handler", async () => {
    await expect(startWorkerWith()).rejects.toThrow(
      "job credits.renew needs exactly one @OnJob handler (found: none)",
    );
  });

  it("refuse to start when a job has two handlers", async () => {
    @Injectable()
    class SecondRenewal {
      @OnJob(renewCreditsJob)
      async renew() {}
    }
    await expect(startWorkerWith(AccountsRepository, CreditsService, SecondRenewal)).rejects.toThrow(
      /exactly one @OnJob handler \(found: .*, .*\)/,
    );
  });
});
