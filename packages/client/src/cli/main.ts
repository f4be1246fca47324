#!/usr/bin/env node
// The `imagehub` command: the client's operations from a shell. Exit codes: 0 done, 2 usage, 3 the API
// refused (or the generation failed), 4 the API could not be reached or did not answer in time, 1 else.
import { parseArgs } from "node:util";
import { GenerationFailedError, ImagehubClient } from "../client.js";
import { ApiError, NetworkError, TimeoutError } from "../errors.js";
import { COMMANDS, type Command, UsageError } from "./commands.js";
import { resolveSettings } from "./settings.js";

const EXIT = { done: 0, failed: 1, usage: 2, api: 3, network: 4 } as const;

const GLOBAL_OPTIONS = {
  "api-key": { type: "string" },
  "base-url": { type: "string" },
  json: { type: "boolean" },
  help: { type: "boolean", short: "h" },
} as const;

const GLOBAL_HELP = `Options of every command:
  --api-key KEY    the key (else IMAGEHUB_API_KEY, else the one saved by login)
  --base-url URL   the API (else IMAGEHUB_BASE_URL, else the saved one, else http://localhost:3000)
  --json           print JSON for scripts
  -h, --help       this help`;

function usage(): string {
  const width = Math.max(...Object.keys(COMMANDS).map((name) => name.length));
  return [
    "Usage: imagehub <command> [options]",
    "",
    "Commands:",
    ...Object.entries(COMMANDS).map(([name, command]) => `  ${name.padEnd(width)}  ${command.summary}`),
    "",
    GLOBAL_HELP,
    "",
    "imagehub <command> --help shows a command's own options.",
  ].join("\n");
}

function commandHelp(command: Command): string {
  return [`Usage: ${command.usage}`, "", command.summary, "", GLOBAL_HELP].join("\n");
}

/** The command named by the first one or two words. */
function findCommand(args: string[]): { name: string; command: Command } | undefined {
  const words = args.filter((arg) => !arg.startsWith("-"));
  for (const name of [`${words[0]} ${words[1]}`, words[0] ?? ""]) {
    const command = COMMANDS[name];
    if (command) return { name, command };
  }
  return undefined;
}

export async function main(
  args: string[],
  io: {
    stdout: NodeJS.WritableStream;
    stderr: NodeJS.WritableStream & { isTTY?: boolean };
    env: NodeJS.ProcessEnv;
  },
): Promise<number> {
  const found = findCommand(args);
  if (!found) {
    const isHelp = args.length === 0 || args.includes("--help") || args.includes("-h");
    (isHelp ? io.stdout : io.stderr).write(
      `${isHelp ? "" : `imagehub: unknown command "${args.join(" ")}"\n\n`}${usage()}\n`,
    );
    return isHelp ? EXIT.done : EXIT.usage;
  }
  const { name, command } = found;
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({ args, options: { ...GLOBAL_OPTIONS, ...command.options }, allowPositionals: true });
  } catch (error) {
    io.stderr.write(`imagehub ${name}: ${(error as Error).message}\n\n${commandHelp(command)}\n`);
    return EXIT.usage;
  }
  const values = parsed.values as Record<string, string | boolean | undefined>;
  if (values.help) {
    io.stdout.write(`${commandHelp(command)}\n`);
    return EXIT.done;
  }
  const positionals = parsed.positionals.slice(name.split(" ").length);
  if (positionals.length < (command.arguments ?? 0)) {
    io.stderr.write(`imagehub ${name}: missing argument\n\n${commandHelp(command)}\n`);
    return EXIT.usage;
  }
  const settings = await resolveSettings(
    {
      ...(typeof values["api-key"] === "string" && { apiKey: values["api-key"] }),
      ...(typeof values["base-url"] === "string" && { baseUrl: values["base-url"] }),
    },
    io.env,
  );
  try {
    await command.run({
      client: new ImagehubClient(settings),
      positionals,
      values,
      env: io.env,
      stderr: io.stderr,
      print: (data, human) => io.stdout.write(`${values.json ? JSON.stringify(data, null, 2) : human}\n`),
    });
    return EXIT.done;
  } catch (error) {
    io.stderr.write(`imagehub ${name}: ${(error as Error).message}\n`);
    if (error instanceof UsageError) return EXIT.usage;
    if (error instanceof ApiError || error instanceof GenerationFailedError) return EXIT.api;
    if (error instanceof NetworkError || error instanceof TimeoutError) return EXIT.network;
    return EXIT.failed;
  }
}

process.exitCode = await main(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
});
