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

type Outcome = keyof typeof EXIT;

function commandList(names: string[]): string[] {
  const width = Math.max(...names.map((name) => name.length));
  return names.map((name) => `  ${name.padEnd(width)}  ${COMMANDS[name]?.summary ?? ""}`);
}

function usage(): string {
  return [
    "Usage: imagehub <command> [options]",
    "",
    "Commands:",
    ...commandList(Object.keys(COMMANDS)),
    "",
    GLOBAL_HELP,
    "",
    "imagehub <command> --help shows a command's own options.",
  ].join("\n");
}

/** The commands of a group (`webhooks` → `webhooks list`, `webhooks get`…). */
function groupUsage(group: string): string {
  return [
    `Usage: imagehub ${group} <command> [options]`,
    "",
    "Commands:",
    ...commandList(Object.keys(COMMANDS).filter((name) => name.startsWith(`${group} `))),
    "",
    `imagehub ${group} <command> --help shows a command's own options.`,
  ].join("\n");
}

function commandHelp(command: Command): string {
  return [`Usage: ${command.usage}`, "", command.summary, "", GLOBAL_HELP].join("\n");
}

/** The command named by the first one or two words, or the group the first word names. */
function findCommand(args: string[]): { name: string; command?: Command } | undefined {
  const words = args.filter((arg) => !arg.startsWith("-"));
  for (const name of [`${words[0]} ${words[1]}`, words[0] ?? ""]) {
    const command = COMMANDS[name];
    if (command) return { name, command };
  }
  const group = words[0];
  const isGroup = Object.keys(COMMANDS).some((name) => name.startsWith(`${group} `));
  return isGroup ? { name: group as string } : undefined;
}

/** What an error makes of the exit code; with --json, the error printed as JSON too. */
function describeFailure(error: unknown): { outcome: Outcome; details: Record<string, unknown> } {
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof UsageError) return { outcome: "usage", details: { message } };
  if (error instanceof ApiError) {
    return {
      outcome: "api",
      details: { message, statusCode: error.statusCode, messages: error.messages },
    };
  }
  if (error instanceof GenerationFailedError) {
    return { outcome: "api", details: { message, generation: error.generation } };
  }
  if (error instanceof NetworkError || error instanceof TimeoutError) {
    return { outcome: "network", details: { message } };
  }
  return { outcome: "failed", details: { message } };
}

export async function main(
  args: string[],
  io: {
    stdout: NodeJS.WritableStream;
    stderr: NodeJS.WritableStream & { isTTY?: boolean };
    env: NodeJS.ProcessEnv;
  },
): Promise<number> {
  const isJson = args.includes("--json");
  const isHelp = args.includes("--help") || args.includes("-h");
  /** Reports an error on stderr, as JSON with --json, and answers the exit code. */
  const fail = (command: string, error: unknown, help?: string): number => {
    const { outcome, details } = describeFailure(error);
    io.stderr.write(
      isJson
        ? `${JSON.stringify({ error: outcome, command, ...details })}\n`
        : `imagehub${command ? ` ${command}` : ""}: ${details.message}\n${help ? `\n${help}\n` : ""}`,
    );
    return EXIT[outcome];
  };

  const found = findCommand(args);
  if (!found) {
    if (args.length === 0 || isHelp) {
      io.stdout.write(`${usage()}\n`);
      return EXIT.done;
    }
    return fail("", new UsageError(`unknown command "${args.join(" ")}"`), usage());
  }
  const { name, command } = found;
  if (!command) {
    if (isHelp) {
      io.stdout.write(`${groupUsage(name)}\n`);
      return EXIT.done;
    }
    return fail(name, new UsageError("which command?"), groupUsage(name));
  }
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({ args, options: { ...GLOBAL_OPTIONS, ...command.options }, allowPositionals: true });
  } catch (error) {
    return fail(name, new UsageError((error as Error).message), commandHelp(command));
  }
  const values = parsed.values as Record<string, string | boolean | undefined>;
  if (values.help) {
    io.stdout.write(`${commandHelp(command)}\n`);
    return EXIT.done;
  }
  const positionals = parsed.positionals.slice(name.split(" ").length);
  if (positionals.length < (command.arguments ?? 0)) {
    return fail(name, new UsageError("missing argument"), commandHelp(command));
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
    return fail(name, error, error instanceof UsageError ? commandHelp(command) : undefined);
  }
}

process.exitCode = await main(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
});
