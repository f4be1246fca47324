import { execFile } from "node:child_process";
import { mkdtemp, readFile, realpath, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createImage, jpegSize } from "../../../tests/support/images.js";
import { freePort } from "../../../tests/support/start-command.mjs";
import { startTestApi, type TestApi } from "../../../tests/support/test-api.js";
import { until } from "../../../tests/support/until.js";
import { WebhookReceiver } from "../../../tests/support/webhook-receiver.js";

const CLI = fileURLToPath(new URL("../dist/cli/main.js", import.meta.url));
const REPOSITORY = fileURLToPath(new URL("../../../", import.meta.url));

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function run(file: string, args: string[], options: { env?: NodeJS.ProcessEnv; cwd?: string } = {}) {
  return new Promise<Run>((resolve) => {
    execFile(file, args, options, (error, stdout, stderr) => {
      resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr });
    });
  });
}

describe("the imagehub command as npm links it", () => {
  it("is a committed file, linked by npm install before any build, that runs the build", async () => {
    const linked = await realpath(join(REPOSITORY, "node_modules/.bin/imagehub"));
    const tracked = await run("git", ["ls-files", "--error-unmatch", relative(REPOSITORY, linked)], {
      cwd: REPOSITORY,
    });
    expect(tracked.code).toBe(0);
    const help = await run(join(REPOSITORY, "node_modules/.bin/imagehub"), ["--help"]);
    expect(help).toMatchObject({ code: 0, stdout: expect.stringContaining("Usage: imagehub <command>") });
  });
});

describe("the imagehub command", () => {
  let api: TestApi;
  let apiKey: string;
  let home: string;
  let imageId: string;
  const env = () => ({
    PATH: process.env.PATH ?? "",
    IMAGEHUB_BASE_URL: api.baseUrl,
    IMAGEHUB_API_KEY: apiKey,
    IMAGEHUB_CONFIG: join(home, "config.json"),
    IMAGEHUB_POLL_MS: "50",
  });
  const imagehub = (args: string[], environment: NodeJS.ProcessEnv = env()): Promise<Run> =>
    run(process.execPath, [CLI, ...args], { env: environment });

  beforeAll(async () => {
    api = await startTestApi({ env: { WEBHOOK_ALLOW_HTTP: "true", WEBHOOK_ALLOW_PRIVATE: "true" } });
    ({ apiKey } = await api.createAccount({ email: "cli@example.test", name: "Cli" }));
    home = await mkdtemp(join(tmpdir(), "imagehub-cli-"));
    imageId = (
      await createImage(api.resources.database.prisma, { en: "A red fox by the river", tags: ["fox"] })
    ).id;
  });
  afterAll(async () => {
    await api.close();
    await rm(home, { recursive: true, force: true });
  });

  it("checks the key and lists credits, for people and as JSON", async () => {
    expect(await imagehub(["keys", "check"])).toMatchObject({ code: 0, stdout: "cli@example.test (Cli)\n" });
    const credits = await imagehub(["credits", "--json"]);
    expect(JSON.parse(credits.stdout)).toContainEqual(
      expect.objectContaining({ type: "f_images", credit: 10 }),
    );
    expect((await imagehub(["credits"])).stdout).toMatch(/^f_images\s+10 \/ 10$/m);
  });

  it("searches", async () => {
    const found = await imagehub(["search", "fox", "--limit", "5"]);
    expect(found.code).toBe(0);
    expect(found.stdout).toContain("1 images");
    expect(found.stdout).toContain(`${imageId}  A red fox by the river`);
  });

  it("generates with --wait, showing progress to 4/4 images and the links", async () => {
    const run = await imagehub([
      "generate",
      "a red fox in snow",
      "--format",
      "16:9",
      "--weather",
      "snowy",
      "--wait",
    ]);
    expect(run.code).toBe(0);
    expect(run.stderr).toContain("4/4 images (Done)");
    const generationId = /^(\S+) {2}a red fox in snow {2}Done$/m.exec(run.stdout)?.[1];
    expect(generationId).toBeDefined();
    expect(
      run.stdout.match(/image \d: \S+ {2}http:\/\/localhost:\d+\/v1\/images\/full\/\S+\.jpg/g),
    ).toHaveLength(4);

    expect((await imagehub(["generations", "list"])).stdout).toContain(
      `${generationId}  Done  a red fox in snow`,
    );
    const shown = JSON.parse(
      (await imagehub(["generations", "get", generationId as string, "--json"])).stdout,
    );
    expect(shown).toMatchObject({
      id: generationId,
      status: 3,
      params: [
        { name: "format", value: "16:9" },
        { name: "weather", value: "snowy" },
      ],
    });
    const retried = await imagehub(["generations", "retry", generationId as string]);
    expect(retried).toMatchObject({ code: 3, stderr: expect.stringMatching(/409 Conflict/) });
    expect((await imagehub(["generations", "delete", generationId as string])).code).toBe(0);
    expect((await imagehub(["generations", "get", generationId as string])).code).toBe(3);
  });

  it("buys and downloads an image into a file", async () => {
    const bought = await imagehub(["buy", imageId]);
    expect(bought.stdout).toContain(`Bought ${imageId}`);
    const links = JSON.parse((await imagehub(["buy", imageId, "--json"])).stdout);
    for (const link of [links.urlFull, links.urlUpscale, links.urlUpscaleUHD]) {
      expect(link).toMatch(/^http/);
      expect(bought.stdout).toContain(new URL(link).pathname);
    }
    const file = join(home, "fox.jpg");
    const run = await imagehub(["download", imageId, "-o", file]);
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(/downloading .*KiB/);
    expect(run.stdout).toContain(`Saved ${file}`);
    expect(await jpegSize(await readFile(file))).toMatchObject({ format: "jpeg", width: 768 });
  });

  it("subscribes, shows and removes a webhook", async () => {
    const subscribed = await imagehub(["webhooks", "subscribe", "http://127.0.0.1:9/hooks", "--json"]);
    const { webhookId, secret } = JSON.parse(subscribed.stdout);
    expect(secret).toMatch(/^whsec_/);
    expect((await imagehub(["webhooks", "get", webhookId])).stdout).toContain(
      "events: print.completed, print.failed",
    );
    expect((await imagehub(["webhooks", "unsubscribe", webhookId])).code).toBe(0);
  });

  it("lists webhooks, sends a test event, shows its attempts and enables a disabled webhook", async () => {
    const receiver = await new WebhookReceiver(() => ({ status: 410 })).start();
    try {
      const { webhookId } = JSON.parse(
        (await imagehub(["webhooks", "subscribe", receiver.url, "--events", "test", "--json"])).stdout,
      );
      expect((await imagehub(["webhooks", "list"])).stdout).toContain(`${webhookId}  ${receiver.url}`);

      const tested = await imagehub(["webhooks", "test", webhookId]);
      expect(tested.code).toBe(0);
      const eventId = /^Test event (\S+) queued/.exec(tested.stdout)?.[1];
      const [received] = await receiver.waitFor(1);
      expect(received?.headers["webhook-id"]).toBe(eventId);

      // 410 Gone disables the webhook at once.
      await until(
        async () => JSON.parse((await imagehub(["webhooks", "get", webhookId, "--json"])).stdout).disabled,
        { what: "the webhook disabled" },
      );
      const attempts = await imagehub(["webhooks", "attempts", webhookId]);
      expect(attempts.stdout).toMatch(
        new RegExp(`^\\S+ {2}event ${eventId} #1 {2}410 Gone {2}\\d+ ms$`, "m"),
      );
      expect((await imagehub(["webhooks", "list"])).stdout).toContain(
        `${webhookId}  ${receiver.url}  disabled`,
      );

      const enabled = await imagehub(["webhooks", "enable", webhookId, "--replay", "--json"]);
      expect(JSON.parse(enabled.stdout)).toMatchObject({ id: webhookId, disabled: false });
    } finally {
      await receiver.stop();
    }
  });

  it("logs in: the key and base URL are saved for later commands", async () => {
    const { PATH, IMAGEHUB_CONFIG } = env();
    const login = await imagehub(["login", "--api-key", apiKey, "--base-url", api.baseUrl], {
      PATH,
      IMAGEHUB_CONFIG,
    });
    expect(login.code).toBe(0);
    expect((await stat(IMAGEHUB_CONFIG)).mode & 0o777).toBe(0o600);
    expect(await imagehub(["keys", "check"], { PATH, IMAGEHUB_CONFIG })).toMatchObject({
      code: 0,
      stdout: "cli@example.test (Cli)\n",
    });
  });

  it("exits 2 on usage errors, 3 on API errors and 4 when the API cannot be reached", async () => {
    expect((await imagehub(["frobnicate"])).code).toBe(2);
    expect((await imagehub(["generate"])).stderr).toContain("Usage: imagehub generate");
    expect((await imagehub(["search", "--limit"])).code).toBe(2);
    expect((await imagehub(["download", imageId])).code).toBe(2);

    const refused = await imagehub(["generations", "get", "no-such-generation"]);
    expect(refused).toMatchObject({ code: 3 });
    expect(refused.stderr).toMatch(/404 Not Found/);
    expect((await imagehub(["keys", "check", "--api-key", "ih_nope"])).code).toBe(3);

    const unreachable = await imagehub(["credits", "--base-url", `http://127.0.0.1:${await freePort()}`]);
    expect(unreachable.code).toBe(4);
    expect(unreachable.stderr).toContain("could not be reached");
  });

  it("refuses bad option values itself, before any request, as usage errors", async () => {
    const nowhere = `http://127.0.0.1:${await freePort()}`;
    for (const [args, named] of [
      [["search", "fox", "--limit", "abc"], "--limit abc: "],
      [["search", "fox", "--limit", "0"], "--limit 0: "],
      [["search", "fox", "--limit", "101"], "--limit 101: "],
      [["search", "fox", "--sort", "random"], "--sort random: "],
      [["generations", "list", "--offset=-1"], "--offset -1: "],
      [["generations", "list", "--status", "9"], "--status 9: "],
    ] as const) {
      const refused = await imagehub([...args, "--base-url", nowhere]);
      expect(refused, args.join(" ")).toMatchObject({ code: 2 });
      expect(refused.stderr).toContain(named);
    }
  });

  it("with --json, prints errors as JSON on stderr, with the same exit codes", async () => {
    const usage = await imagehub(["search", "--limit", "0", "--json"]);
    expect(usage.code).toBe(2);
    expect(JSON.parse(usage.stderr)).toMatchObject({ error: "usage", command: "search" });
    const unknown = await imagehub(["frobnicate", "--json"]);
    expect(unknown.code).toBe(2);
    expect(JSON.parse(unknown.stderr)).toMatchObject({ error: "usage" });

    const refused = await imagehub(["keys", "check", "--api-key", "ih_nope", "--json"]);
    expect(refused.code).toBe(3);
    expect(JSON.parse(refused.stderr)).toMatchObject({
      error: "api",
      statusCode: 401,
      messages: [expect.any(String)],
    });

    const unreachable = await imagehub([
      "credits",
      "--json",
      "--base-url",
      `http://127.0.0.1:${await freePort()}`,
    ]);
    expect(unreachable.code).toBe(4);
    expect(JSON.parse(unreachable.stderr)).toMatchObject({
      error: "network",
      message: expect.stringContaining("could not be reached"),
    });
  });

  it("lists a group's commands on --help, and when the command is missing", async () => {
    const help = await imagehub(["webhooks", "--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("Usage: imagehub webhooks <command>");
    for (const command of ["subscribe", "list", "get", "test", "attempts", "enable", "unsubscribe"]) {
      expect(help.stdout).toMatch(new RegExp(`^ {2}webhooks ${command} +\\S`, "m"));
    }
    expect(help.stdout).not.toContain("generate");

    const missing = await imagehub(["generations"]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/^ {2}generations list +\S/m);
  });

  it("has --help on every command", async () => {
    const overview = await imagehub(["--help"]);
    expect(overview).toMatchObject({ code: 0 });
    for (const command of [
      "search",
      "generate",
      "generations list",
      "download",
      "webhooks subscribe",
      "webhooks attempts",
    ]) {
      const help = await imagehub([...command.split(" "), "--help"]);
      expect(help.code).toBe(0);
      expect(help.stdout).toContain(`Usage: imagehub ${command}`);
    }
  });
});
