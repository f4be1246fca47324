import { mkdir, readFile, writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import { dirname, join } from "node:path";

export interface Settings {
  baseUrl?: string;
  apiKey?: string;
}

/** Where `imagehub login` keeps the key and base URL: IMAGEHUB_CONFIG, else ~/.config/imagehub/config.json. */
export function configPath(env: NodeJS.ProcessEnv): string {
  return (
    env.IMAGEHUB_CONFIG ?? join(env.XDG_CONFIG_HOME ?? join(homedir(), ".config"), "imagehub", "config.json")
  );
}

/** Flags first, then IMAGEHUB_API_KEY / IMAGEHUB_BASE_URL, then the config file. */
export async function resolveSettings(flags: Settings, env: NodeJS.ProcessEnv): Promise<Settings> {
  const saved = await readSaved(configPath(env));
  const apiKey = flags.apiKey ?? env.IMAGEHUB_API_KEY ?? saved.apiKey;
  const baseUrl = flags.baseUrl ?? env.IMAGEHUB_BASE_URL ?? saved.baseUrl;
  return { ...(apiKey && { apiKey }), ...(baseUrl && { baseUrl }) };
}

/** Written readable by its owner only: it holds a key. */
export async function saveSettings(settings: Settings, env: NodeJS.ProcessEnv): Promise<string> {
  const path = configPath(env);
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  await writeFile(path, `${JSON.stringify(settings, null, 2)}\n`, { mode: 0o600 });
  return path;
}

async function readSaved(path: string): Promise<Settings> {
  try {
    return JSON.parse(await readFile(path, "utf8")) as Settings;
  } catch {
    return {};
  }
}
