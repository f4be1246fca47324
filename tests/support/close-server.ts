import { once } from "node:events";
import type { Server } from "node:http";

/** Closes a test server at once: open keep-alive connections would hold `close` back. */
export async function closeServer(server: Server): Promise<void> {
  server.closeAllConnections();
  server.close();
  await once(server, "close");
}
