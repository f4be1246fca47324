// Writes to the catalogue while a mix runs, as a live catalogue takes them: purchases raise an image's
// popularity (which the `popular` sort reads), and catalogue changes move an image's date (which every
// search's answer may depend on). Either kind makes the API compute reused answers again.
import pg from "pg";

/**
 * Starts writing at the given rates (per second; 0 for none) on random catalogue images.
 * @param {string} databaseUrl @param {{ purchasesPerS: number, catalogueChangesPerS: number }} rates
 * @returns {Promise<{ stop: () => Promise<number> }>} `stop` answers how many writes were made
 */
export async function startCatalogueWrites(databaseUrl, { purchasesPerS, catalogueChangesPerS }) {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  const { rows } = await client.query(
    "SELECT id FROM images TABLESAMPLE SYSTEM (1) WHERE source = 'catalogue' LIMIT 1000",
  );
  const ids = rows.map((row) => /** @type {string} */ (row.id));
  let writes = 0;
  /** One write at a time: a tick that finds the last one still running is skipped. */
  let writing = Promise.resolve();
  let busy = false;
  /** @param {number} perS @param {string} sql */
  const every = (perS, sql) =>
    perS > 0
      ? setInterval(() => {
          if (busy) return;
          busy = true;
          writing = client
            .query(sql, [ids[Math.floor(Math.random() * ids.length)]])
            .then(() => void writes++)
            .finally(() => (busy = false));
        }, 1000 / perS)
      : undefined;
  const timers = [
    every(purchasesPerS, "UPDATE images SET popularity = popularity + 1 WHERE id = $1"),
    every(
      catalogueChangesPerS,
      "UPDATE images SET created_at = created_at + interval '1 millisecond' WHERE id = $1",
    ),
  ];
  return {
    stop: async () => {
      for (const timer of timers) clearInterval(timer);
      await writing;
      await client.end();
      return writes;
    },
  };
}
