import { createWriteStream } from "node:fs";
import { Readable, Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { ParseArgsConfig } from "node:util";
import {
  FindImageGenerationsQuerySchema,
  type GenerationParam,
  type ImageGeneration,
  NAME_MAX_LENGTH,
  SearchImagesRequestSchema,
  type Webhook,
  type WebhookAttempt,
} from "@imagehub/domain";
import type { z } from "zod";
import type { ImagehubClient } from "../client.js";
import { ProgressBar } from "./progress.js";
import { saveSettings } from "./settings.js";

type Options = NonNullable<ParseArgsConfig["options"]>;
type Values = Record<string, string | boolean | undefined>;

export interface CommandContext {
  client: ImagehubClient;
  positionals: string[];
  values: Values;
  env: NodeJS.ProcessEnv;
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
  /** Prints `human` for people, or `data` as JSON with --json. */
  print(data: unknown, human: string): void;
}

export interface Command {
  usage: string;
  summary: string;
  options?: Options;
  /** Positionals the command needs. */
  arguments?: number;
  run(context: CommandContext): Promise<void>;
}

/** Thrown for a command line that cannot be run: exit code 2, with the command's help. */
export class UsageError extends Error {}

/** A command whose one argument is an ID: `call` runs with it; its answer is printed as `describe` words it. */
function commandOnId<T>(
  usage: string,
  summary: string,
  call: (client: ImagehubClient, id: string) => Promise<T>,
  describe: (answer: T, id: string) => string,
): Command {
  return {
    usage,
    summary,
    arguments: 1,
    async run(context) {
      const id = context.positionals[0] as string;
      const answer = await call(context.client, id);
      context.print(answer, describe(answer, id));
    },
  };
}

const GENERATION_FLAGS: Options = {
  format: { type: "string" },
  weather: { type: "string" },
  time: { type: "string" },
  camera: { type: "string" },
  chaos: { type: "string" },
  stylize: { type: "string" },
  no: { type: "string" },
  template: { type: "string" },
  name: { type: "string" },
  advanced: { type: "boolean" },
  optimize: { type: "boolean" },
  wait: { type: "boolean" },
};

/** Flag → simple-mode param of the spec's table. */
const PARAM_OF_FLAG: Record<string, string> = {
  format: "format",
  weather: "weather",
  time: "time",
  camera: "camera",
  chaos: "chaos",
  stylize: "stylize",
  no: "interdiction",
  template: "templatePrompt",
};

const PAGE_FLAGS: Options = { limit: { type: "string" }, offset: { type: "string" } };

/**
 * An option's value, checked by the domain's schema of the field it becomes, so that a bad value is a
 * usage error here rather than a request the API refuses.
 */
function optionValue<T>(values: Values, name: string, schema: z.ZodType<T>): T | undefined {
  const value = values[name];
  if (typeof value !== "string") return undefined;
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    throw new UsageError(
      `--${name} ${value}: ${parsed.error.issues.map((issue) => issue.message).join("; ")}`,
    );
  }
  return parsed.data;
}

/** --limit and --offset, in the bounds every list of the API has. */
function pageOf(values: Values): { limit?: number; offset?: number } {
  const { limit, offset } = FindImageGenerationsQuerySchema.shape;
  const page = { limit: optionValue(values, "limit", limit), offset: optionValue(values, "offset", offset) };
  return {
    ...(page.limit !== undefined && { limit: page.limit }),
    ...(page.offset !== undefined && { offset: page.offset }),
  };
}

const STATUS_NAMES: Record<number, string> = {
  0: "Create",
  1: "Pending",
  2: "Processing",
  3: "Done",
  4: "Error",
};

function describeGeneration(generation: ImageGeneration): string {
  const lines = [
    `${generation.id}  ${generation.name}  ${STATUS_NAMES[generation.status] ?? generation.status}`,
    `  prompt: ${generation.prompt}`,
    ...(generation.failureReason ? [`  failure: ${generation.failureReason}`] : []),
    ...generation.images.map((image, index) => `  image ${index + 1}: ${image.id}  ${image.urlFull}`),
  ];
  return lines.join("\n");
}

function describeWebhook(webhook: Webhook): string {
  return [
    `${webhook.id}  ${webhook.url}${webhook.disabled ? "  disabled" : ""}`,
    `  events: ${webhook.events.join(", ")}`,
    ...(webhook.disabled ? [`  disabled: ${webhook.disabledReason ?? "yes"}`] : []),
    ...(webhook.failingSince ? [`  failing since ${webhook.failingSince}`] : []),
  ].join("\n");
}

function describeAttempt(attempt: WebhookAttempt): string {
  const outcome = attempt.error ?? `delivered (HTTP ${attempt.statusCode})`;
  return `${attempt.createdAt}  event ${attempt.eventId} #${attempt.attempt}  ${outcome}  ${attempt.durationMs} ms`;
}

async function waitWithProgress(context: CommandContext, generation: ImageGeneration) {
  const bar = new ProgressBar(context.stderr, "generating");
  try {
    return await context.client.waitForGeneration(generation.id, {
      intervalMs: Number(context.env.IMAGEHUB_POLL_MS ?? 1000),
      onProgress: (current) =>
        bar.update(
          current.images.length,
          4,
          `${current.images.length}/4 images (${STATUS_NAMES[current.status] ?? current.status})`,
        ),
    });
  } finally {
    bar.finish();
  }
}

export const COMMANDS: Record<string, Command> = {
  login: {
    usage: "imagehub login --api-key KEY [--base-url URL]",
    summary: "check a key and save it (with the base URL) for later commands",
    async run(context) {
      if (typeof context.values["api-key"] !== "string") throw new UsageError("--api-key KEY is required");
      const account = await context.client.keys.check();
      const path = await saveSettings(
        {
          apiKey: context.values["api-key"],
          ...(typeof context.values["base-url"] === "string" && { baseUrl: context.values["base-url"] }),
        },
        context.env,
      );
      context.print({ ...account, config: path }, `Logged in as ${account.email}; saved in ${path}`);
    },
  },
  "keys check": {
    usage: "imagehub keys check",
    summary: "the account that owns the key",
    async run(context) {
      const account = await context.client.keys.check();
      context.print(account, `${account.email}${account.name ? ` (${account.name})` : ""}`);
    },
  },
  credits: {
    usage: "imagehub credits",
    summary: "credits left, per bucket",
    async run(context) {
      const { credits } = await context.client.credits.get();
      context.print(
        credits,
        credits
          .map(
            (bucket) =>
              `${bucket.type.padEnd(22)} ${bucket.unlimited ? "unlimited" : `${bucket.credit} / ${bucket.creditTotal}`}`,
          )
          .join("\n"),
      );
    },
  },
  search: {
    usage:
      'imagehub search "red fox" [--free] [--sort relevance|newest|oldest|popular] [--limit N] [--offset N]',
    summary: "search the catalogue",
    options: { free: { type: "boolean" }, sort: { type: "string" }, ...PAGE_FLAGS },
    async run(context) {
      const { values } = context;
      const sort = optionValue(values, "sort", SearchImagesRequestSchema.shape.sort.unwrap());
      const result = await context.client.images.search({
        ...(context.positionals[0] && { search: context.positionals[0] }),
        ...(values.free && { filterFree: true }),
        ...(sort && { sort }),
        ...pageOf(values),
      });
      context.print(
        result,
        [
          `${result.filteredResults} images`,
          ...result.images.map(
            (image) =>
              `${image.id}  ${image.free ? "free " : ""}${image.titles.en ?? Object.values(image.titles)[0] ?? ""}`,
          ),
        ].join("\n"),
      );
    },
  },
  generate: {
    usage:
      'imagehub generate "a red fox in snow" [--format 16:9] [--weather snowy] [--time sunrise] [--camera …] [--chaos N] [--stylize N] [--no a,b] [--template …] [--name …] [--advanced] [--optimize] [--wait]',
    summary: "create a generation; with --wait, follow it to its 4 images",
    options: GENERATION_FLAGS,
    arguments: 1,
    async run(context) {
      const { values } = context;
      const prompt = context.positionals[0] as string;
      const params: GenerationParam[] = Object.entries(PARAM_OF_FLAG).flatMap(([flag, name]) =>
        typeof values[flag] === "string" ? [{ name, value: values[flag] as string }] : [],
      );
      const created = await context.client.generations.create({
        name: typeof values.name === "string" ? values.name : prompt.slice(0, NAME_MAX_LENGTH),
        prompt,
        mode: values.advanced ? "advanced" : "simple",
        ...(params.length > 0 && { params }),
        ...(values.optimize && { optimizePrompt: true }),
      });
      const generation = values.wait ? await waitWithProgress(context, created) : created;
      context.print(generation, describeGeneration(generation));
    },
  },
  "generations list": {
    usage: "imagehub generations list [--name TEXT] [--status N] [--limit N] [--offset N]",
    summary: "your generations, newest first",
    options: { name: { type: "string" }, status: { type: "string" }, ...PAGE_FLAGS },
    async run(context) {
      const { values } = context;
      const status = optionValue(values, "status", FindImageGenerationsQuerySchema.shape.status.unwrap());
      const list = await context.client.generations.find({
        ...(typeof values.name === "string" && { name: values.name }),
        ...(status !== undefined && { status }),
        ...pageOf(values),
      });
      context.print(
        list,
        [
          `${list.filteredResults} generations`,
          ...list.prints.map((print) => `${print.id}  ${STATUS_NAMES[print.status]}  ${print.name}`),
        ].join("\n"),
      );
    },
  },
  "generations get": {
    usage: "imagehub generations get ID [--wait]",
    summary: "one generation; with --wait, follow it to the end",
    options: { wait: { type: "boolean" } },
    arguments: 1,
    async run(context) {
      const found = await context.client.generations.get(context.positionals[0] as string);
      const generation = context.values.wait ? await waitWithProgress(context, found) : found;
      context.print(generation, describeGeneration(generation));
    },
  },
  "generations retry": commandOnId(
    "imagehub generations retry ID",
    "run a generation in Error again",
    (client, id) => client.generations.retry(id),
    describeGeneration,
  ),
  "generations delete": {
    usage: "imagehub generations delete ID [ID …]",
    summary: "delete generations (bought images stay)",
    arguments: 1,
    async run(context) {
      const answer = await context.client.generations.delete(context.positionals);
      const notFound = answer.notFound.length > 0 ? `; not found: ${answer.notFound.join(", ")}` : "";
      context.print(answer, `Deleted ${answer.deleted.length}${notFound}`);
    },
  },
  buy: commandOnId(
    "imagehub buy ID",
    "buy an image (debited once) and show its download links",
    (client, id) => client.images.buy(id),
    (bought) =>
      [
        `Bought ${bought.id}`,
        `  full:        ${bought.urlFull}`,
        ...(bought.urlUpscale ? [`  upscale 2×:  ${bought.urlUpscale}`] : []),
        `  upscale UHD: ${bought.urlUpscaleUHD}`,
      ].join("\n"),
  ),
  download: {
    usage: "imagehub download ID -o FILE",
    summary: "download the clean image (buying it if needed) into a file",
    options: { output: { type: "string", short: "o" } },
    arguments: 1,
    async run(context) {
      const output = context.values.output;
      if (typeof output !== "string") throw new UsageError("-o FILE is required");
      const response = await context.client.images.download(context.positionals[0] as string);
      const total = Number(response.headers.get("content-length") ?? 0) || undefined;
      const bar = new ProgressBar(context.stderr, "downloading");
      let received = 0;
      const counter = new Transform({
        transform(chunk: Buffer, _encoding, done) {
          received += chunk.length;
          bar.update(
            received,
            total,
            `${Math.round(received / 1024)} KiB${total ? ` / ${Math.round(total / 1024)} KiB` : ""}`,
          );
          done(null, chunk);
        },
      });
      try {
        await pipeline(Readable.fromWeb(response.body as never), counter, createWriteStream(output));
      } finally {
        bar.finish();
      }
      context.print({ file: output, bytes: received }, `Saved ${output} (${received} bytes)`);
    },
  },
  "webhooks subscribe": {
    usage: "imagehub webhooks subscribe URL [--events print.completed,print.failed,…]",
    summary: "receive signed events at URL; shows the signing secret once",
    options: { events: { type: "string" } },
    arguments: 1,
    async run(context) {
      const events = typeof context.values.events === "string" ? context.values.events.split(",") : undefined;
      const subscribed = await context.client.webhooks.subscribe({
        url: context.positionals[0] as string,
        ...(events && { events: events as ["test"] }),
      });
      context.print(
        subscribed,
        `Webhook ${subscribed.webhookId}\nSigning secret (shown once): ${subscribed.secret}`,
      );
    },
  },
  "webhooks list": {
    usage: "imagehub webhooks list",
    summary: "the account's webhooks",
    async run(context) {
      const list = await context.client.webhooks.list();
      context.print(
        list,
        [
          `${list.webhooks.length} webhooks`,
          ...list.webhooks.map((webhook) => describeWebhook(webhook)),
        ].join("\n"),
      );
    },
  },
  "webhooks get": commandOnId(
    "imagehub webhooks get ID",
    "a webhook and its events",
    (client, id) => client.webhooks.get(id),
    describeWebhook,
  ),
  "webhooks test": commandOnId(
    "imagehub webhooks test ID",
    "send the webhook a signed `test` event",
    (client, id) => client.webhooks.test(id),
    (queued, id) => `Test event ${queued.eventId} queued; imagehub webhooks attempts ${id} shows how it went`,
  ),
  "webhooks attempts": commandOnId(
    "imagehub webhooks attempts ID",
    "the latest delivery attempts, newest first",
    (client, id) => client.webhooks.attempts(id),
    ({ attempts }) =>
      [`${attempts.length} attempts`, ...attempts.map((attempt) => describeAttempt(attempt))].join("\n"),
  ),
  "webhooks enable": {
    usage: "imagehub webhooks enable ID [--replay]",
    summary: "turn a disabled webhook back on; --replay also sends the events it missed",
    options: { replay: { type: "boolean" } },
    arguments: 1,
    async run(context) {
      const webhook = await context.client.webhooks.enable(
        context.positionals[0] as string,
        context.values.replay ? { replay: true } : {},
      );
      context.print(webhook, describeWebhook(webhook));
    },
  },
  "webhooks unsubscribe": {
    usage: "imagehub webhooks unsubscribe ID",
    summary: "remove a webhook",
    arguments: 1,
    async run(context) {
      await context.client.webhooks.unsubscribe(context.positionals[0] as string);
      context.print({ unsubscribed: context.positionals[0] }, `Unsubscribed ${context.positionals[0]}`);
    },
  },
};
