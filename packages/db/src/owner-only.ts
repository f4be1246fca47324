import { chmod, lstat, readdir } from "node:fs/promises";
import { join } from "node:path";

/**
 * Narrows `root` and everything under it to its owner: folders 0700, files 0600 (at most what they had).
 * Symbolic links are left alone: a link's target may be anywhere (a mounted volume).
 */
export async function narrowToOwner(root: string): Promise<void> {
  const pending = [root];
  for (let path = pending.pop(); path !== undefined; path = pending.pop()) {
    const stats = await lstat(path);
    if (stats.isSymbolicLink()) continue;
    const ownerOnly = stats.isDirectory() ? (stats.mode & 0o700) | 0o700 : stats.mode & 0o700;
    if ((stats.mode & 0o777) !== ownerOnly) await chmod(path, ownerOnly);
    if (stats.isDirectory()) {
      for (const entry of await readdir(path)) pending.push(join(path, entry));
    }
  }
}
