import pg from "pg";

/**
 * The invariants that hold whatever failed, each a query counting what breaks it (0 when it holds), over
 * every generation, bucket and purchase of the database.
 */
const INVARIANTS: [string, string][] = [
  ["every generation Done or Error", "SELECT count(*) FROM generations WHERE status IN (1, 2)"],
  [
    "none processed twice (one ending event each, 4 images when Done)",
    `SELECT count(*) FROM generations g WHERE
       (SELECT count(*) FROM outbox_events e WHERE e.generation_id = g.id AND e.type IN ('print.completed', 'print.failed')) > 1
       OR (g.status = 3 AND (SELECT count(*) FROM images i WHERE i.generation_id = g.id) <> 4)`,
  ],
  [
    "ledger sum = every balance",
    `SELECT count(*) FROM credit_buckets b
       WHERE b.balance <> (SELECT coalesce(sum(l.amount), 0) FROM credit_ledger l WHERE l.bucket_id = b.id)`,
  ],
  ["no balance below zero", "SELECT count(*) FROM credit_buckets WHERE balance < 0 AND NOT unlimited"],
  [
    "no purchase debited twice",
    `SELECT count(*) FROM (SELECT bucket_id, reference FROM credit_ledger WHERE reason = 'purchase'
       GROUP BY bucket_id, reference HAVING count(*) > 1) twice`,
  ],
  [
    "no credit held by a finished generation (an Error's credit returned)",
    `SELECT count(*) FROM generations g WHERE (g.status IN (3, 4) AND g.credit_held)
       OR (g.status = 4 AND (SELECT coalesce(sum(amount), 0) FROM credit_ledger l
         WHERE l.reference = g.id::text AND l.reason IN ('generation', 'refund')) <> 0)`,
  ],
];

/** The invariants that do not hold, each with how many rows break it. */
export async function brokenInvariants(databaseUrl: string): Promise<string[]> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const broken: string[] = [];
    for (const [name, sql] of INVARIANTS) {
      const count = Number((await client.query<{ count: string }>(sql)).rows[0]?.count);
      if (count > 0) broken.push(`${name}: ${count} rows break it`);
    }
    return broken;
  } finally {
    await client.end();
  }
}

/** Runs one query on the suite's database. */
export async function query<Row extends pg.QueryResultRow>(
  databaseUrl: string,
  sql: string,
  values: unknown[] = [],
): Promise<Row[]> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return (await client.query<Row>(sql, values)).rows;
  } finally {
    await client.end();
  }
}
