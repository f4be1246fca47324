export {
  type Database,
  type DatabaseOptions,
  DEFAULT_POOL_SIZE,
  type Listener,
  openDatabase,
  type QueryEvent,
} from "./database.js";
export * from "./generated/prisma/client.js";
export { MIGRATIONS_DIR, type Migration, migrate, readMigrations } from "./migrator.js";
export { narrowToOwner } from "./owner-only.js";
export { pgliteSession, pgSession, type SqlSession } from "./sql-session.js";
