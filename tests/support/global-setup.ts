import { migrate, pgSession } from "@imagehub/db";
import pg from "pg";
import type { TestProject } from "vitest/node";
import { databaseUrl, TEST_POSTGRES_URL, uniqueName } from "./environment.js";

declare module "vitest" {
  export interface ProvidedContext {
    templateDatabase: string;
  }
}

/** Migrates one template database per run; each test file clones it (fast) into its own database. */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const templateDatabase = uniqueName("imagehub_template");
  await admin(`CREATE DATABASE "${templateDatabase}"`);
  const client = new pg.Client({ connectionString: databaseUrl(templateDatabase) });
  await client.connect();
  try {
    await migrate(pgSession(client));
  } finally {
    await client.end();
  }
  project.provide("templateDatabase", templateDatabase);
  return () => admin(`DROP DATABASE IF EXISTS "${templateDatabase}" WITH (FORCE)`);
}

export async function admin(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: TEST_POSTGRES_URL });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}
