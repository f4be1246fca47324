import { chmod, lstat, mkdir, readdir } from "node:fs/promises";
import { join } from "node:path";

/** Owner only: group and others lose every right. */
const PRIVATE_UMASK = 0o077;

/**
 * DATA_DIR holds the embedded database (its WAL carries webhook secrets), stored images and the demo key:
 * from now on this process creates files 0600 and folders 0700, and what is already there (made by an
 * earlier version, or by a process with a looser umask) is narrowed to its owner at start.
 */
export async function makeDataDirPrivate(dataDir: string): Promise<void> {
  process.umask(PRIVATE_UMASK);
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  const pending = [dataDir];
  for (let path = pending.pop(); path !== undefined; path = pending.pop()) {
    const stats = await lstat(path);
    // A link's target may be anywhere (a mounted volume): changed through its own path, if at all.
    if (stats.isSymbolicLink()) continue;
    const ownerOnly = stats.isDirectory() ? (stats.mode & 0o700) | 0o700 : stats.mode & 0o700;
    if ((stats.mode & 0o777) !== ownerOnly) await chmod(path, ownerOnly);
    if (stats.isDirectory()) {
      for (const entry of await readdir(path)) pending.push(join(path, entry));
    }
  }
}
