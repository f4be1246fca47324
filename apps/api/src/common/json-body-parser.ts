import type { NestFastifyApplication } from "@nestjs/platform-fastify";
import type { RawServerDefault } from "fastify";

/**
 * Clients of the live service send `Content-Type: application/json` on every request, bodies or not: an
 * empty body there means no body (Fastify's own parser refuses it). Anything else goes to Fastify's parser,
 * which refuses `__proto__` and `constructor.prototype` keys.
 */
export function acceptEmptyJsonBodies(app: NestFastifyApplication, bodyLimit: number): void {
  const fastify = app.getHttpAdapter().getInstance();
  const parseJson = fastify.getDefaultJsonParser("error", "error");
  app.useBodyParser<RawServerDefault>("application/json", { bodyLimit }, (request, body, done) => {
    if (body.length === 0) {
      done(null, undefined);
      return;
    }
    void parseJson(request, body.toString("utf8"), done);
  });
}
