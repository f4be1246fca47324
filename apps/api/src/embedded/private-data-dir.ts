import { mkdir } from "node:fs/promises";
import { narrowToOwner } from "@imagehub/db";

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
  await narrowToOwner(dataDir);
}
