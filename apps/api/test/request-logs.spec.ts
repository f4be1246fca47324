import { PassThrough } from "node:stream";
import { Controller, Get, Inject, Logger, Module } from "@nestjs/common";
import type { Logger as PinoLogger } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApi, type TestApi } from "../../../tests/support/test-api.js";
import { UndocumentedPublic } from "../src/common/endpoint.decorator.js";
import { LOGGER } from "../src/common/logger.js";

/** A route whose work logs the way the application's code does: Nest's Logger and the pino logger, later. */
@Controller()
class LoggingProbeController {
  private readonly logger = new Logger("Probe");

  constructor(@Inject(LOGGER) private readonly pino: PinoLogger) {}

  @Get("/probe/logs")
  @UndocumentedPublic()
  async log(): Promise<{ ok: true }> {
    this.logger.log("before the wait");
    // A turn of the event loop: what follows runs in another callback, as after any I/O.
    await new Promise((resolve) => setImmediate(resolve));
    this.pino.warn({ step: 2 }, "after the wait");
    setImmediate(() => this.logger.warn("from a callback the request scheduled"));
    return { ok: true };
  }
}

@Module({ controllers: [LoggingProbeController] })
class LoggingProbeModule {}

describe("request ids in logs", () => {
  let api: TestApi;
  const lines: Record<string, unknown>[] = [];
  const rawLines: string[] = [];

  beforeAll(async () => {
    const destination = new PassThrough();
    destination.on("data", (chunk: Buffer) => {
      for (const line of chunk.toString().split("\n").filter(Boolean)) {
        rawLines.push(line);
        lines.push(JSON.parse(line));
      }
    });
    api = await startTestApi({
      env: { LOG_LEVEL: "info" },
      extraModules: [LoggingProbeModule],
      logDestination: destination,
    });
  });
  afterAll(() => api.close());

  it("puts the request's id, once, on every line its work writes, whoever writes it", async () => {
    const [first, second] = await Promise.all([api.request("/probe/logs"), api.request("/probe/logs")]);
    const ids = [first?.headers.get("x-request-id"), second?.headers.get("x-request-id")];
    await new Promise((resolve) => setImmediate(resolve));
    for (const requestId of ids) {
      const written = lines.filter((line) => line.reqId === requestId);
      expect(written.map((line) => line.msg)).toEqual(
        expect.arrayContaining([
          "incoming request",
          "before the wait",
          "after the wait",
          "from a callback the request scheduled",
          "request completed",
        ]),
      );
    }
    expect(rawLines.filter((line) => line.split('"reqId"').length > 2)).toEqual([]);
    const probeLines = lines.filter((line) => line.context === "Probe" || line.step === 2);
    expect(probeLines).toHaveLength(6);
    expect(probeLines.every((line) => ids.includes(line.reqId as string))).toBe(true);
  });

  it("keeps a request's id from the x-request-id header it came with", async () => {
    const response = await api.request("/probe/logs", {
      headers: { "x-request-id": "trace-from-the-proxy" },
    });
    expect(response.headers.get("x-request-id")).toBe("trace-from-the-proxy");
    await new Promise((resolve) => setImmediate(resolve));
    expect(lines.filter((line) => line.reqId === "trace-from-the-proxy").map((line) => line.msg)).toContain(
      "after the wait",
    );
  });

  it("writes lines outside any request without an id", () => {
    const startup = lines.filter((line) => line.context === "NestApplication");
    expect(startup.length).toBeGreaterThan(0);
    expect(startup.every((line) => line.reqId === undefined)).toBe(true);
  });
});
