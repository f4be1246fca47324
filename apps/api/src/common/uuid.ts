const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Ids are UUIDs; anything else names no row (and must not reach PostgreSQL as a malformed uuid). */
export function isUuid(id: string): boolean {
  return UUID.test(id);
}
