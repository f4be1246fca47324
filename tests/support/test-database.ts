import { inject } from "vitest";
import { databaseUrl, uniqueName } from "./environment.js";
import { admin } from "./global-setup.js";

export interface TestDatabase {
  name: string;
  url: string;
  drop(): Promise<void>;
}

/**
 * A PostgreSQL database of the test file's own: cloned from the run's migrated template (fast), or empty
 * for the migration runner's own tests.
 */
export async function createTestDatabase({ migrated = true } = {}): Promise<TestDatabase> {
  const name = uniqueName("imagehub_test");
  const template = migrated ? ` TEMPLATE "${inject("templateDatabase")}"` : "";
  await admin(`CREATE DATABASE "${name}"${template}`);
  return {
    name,
    url: databaseUrl(name),
    drop: () => admin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`),
  };
}
