import { existsSync } from "node:fs";
import { join } from "node:path";
import fastifyStatic from "@fastify/static";
import type { NestFastifyApplication } from "@nestjs/platform-fastify";
import { errorBody } from "../common/error-body.js";

/** First path segments that belong to the API: the web app's page fallback never answers them. */
const API_SEGMENTS = new Set(["v1", "doc", "doc-json", "account", "admin", "health", "metrics"]);

/** The page itself may only load what the app ships, and never be framed by another site. */
const PAGE_HEADERS = {
  "cache-control": "no-cache",
  "content-security-policy":
    "default-src 'self'; img-src 'self' data: blob:; style-src 'self' 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
  "x-content-type-options": "nosniff",
  "referrer-policy": "same-origin",
};

/**
 * Serves the built web app (apps/web/dist) from the API's own origin: its files, with a year of caching for
 * the content-hashed ones under /assets, and its index page for every other path outside the API, so that
 * the app's own routes (/keys, /generations, …) load on a refresh.
 */
export async function serveWebApp(app: NestFastifyApplication, webDir: string): Promise<void> {
  const isBuilt = existsSync(join(webDir, "index.html"));
  if (isBuilt) {
    await app.register(fastifyStatic, {
      root: webDir,
      wildcard: false,
      index: false,
      cacheControl: false,
      setHeaders: (response, path) => {
        const isHashed = path.startsWith(join(webDir, "assets"));
        response.setHeader("cache-control", isHashed ? "public, max-age=31536000, immutable" : "no-cache");
      },
    });
  }
  app
    .getHttpAdapter()
    .getInstance()
    .get("/*", (request, reply) => {
      const segment = request.url.split(/[/?#]/)[1] ?? "";
      if (API_SEGMENTS.has(segment) || !isBuilt) {
        return reply.status(404).send(errorBody(404, `Cannot ${request.method} ${request.url}`));
      }
      return reply.headers(PAGE_HEADERS).sendFile("index.html");
    });
}
