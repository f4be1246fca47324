import { DEFAULT_POOL_SIZE } from "@imagehub/db";
import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "./config.js";

describe("loadConfig", () => {
  it("maps each area's variables to its own section, with the defaults", () => {
    const config = loadConfig({
      DATABASE_URL: "postgres://imagehub@db/imagehub",
      WEBHOOK_SWEEP_SECONDS: "45",
    });
    expect(config.webhooks).toMatchObject({ sweepSeconds: 45, relayIntervalMs: 100, allowHttp: false });
    expect(config.database).toMatchObject({
      url: "postgres://imagehub@db/imagehub",
      poolSize: DEFAULT_POOL_SIZE,
    });
    expect(config.catalogue.seedCount).toBe(0);
    expect(config.hasDemoAccount).toBe(false);
  });

  it("reads a variable several sections need the same way in each", () => {
    const config = loadConfig({
      PUBLIC_BASE_URL: "https://images.example.com/",
      SMTP_URL: "smtp://mail:587",
    });
    expect(config.http.publicBaseUrl).toBe("https://images.example.com");
    expect(config.webArea.hasSecureCookies).toBe(true);
    expect(config.mail?.from).toBe("imagehub <no-reply@images.example.com>");
  });

  it("names the variable whose value is wrong, once however many sections read it", () => {
    expect(() => loadConfig({ PORT: "eighty" })).toThrow(
      new ConfigError("Invalid configuration: PORT: Invalid input: expected number, received NaN"),
    );
  });

  it("checks the rules between variables once each variable reads right", () => {
    expect(() => loadConfig({ STORAGE_DRIVER: "s3", PORT: "eighty" })).toThrow(
      new ConfigError("Invalid configuration: PORT: Invalid input: expected number, received NaN"),
    );
    expect(() => loadConfig({ STORAGE_DRIVER: "s3" })).toThrow(
      new ConfigError("Invalid configuration: S3_BUCKET: required when STORAGE_DRIVER=s3"),
    );
    expect(() => loadConfig({ S3_DISPLAY_REDIRECT_SECONDS: "300" })).toThrow(
      new ConfigError("Invalid configuration: S3_DISPLAY_REDIRECT_SECONDS: needs STORAGE_DRIVER=s3"),
    );
  });

  it("runs several API processes only as HTTP processes on PostgreSQL, their metrics each on its own port", () => {
    const postgres = { DATABASE_URL: "postgres://imagehub@db/imagehub" };
    expect(loadConfig({ ...postgres, ROLE: "api", API_PROCESSES: "2" }).apiProcesses).toBe(2);
    expect(loadConfig({}).apiProcesses).toBe(1);
    const needs =
      "Invalid configuration: API_PROCESSES: more than 1 needs ROLE=api and a DATABASE_URL (the embedded database and the queue workers run in one process)";
    expect(() => loadConfig({ ROLE: "api", API_PROCESSES: "2" })).toThrow(new ConfigError(needs));
    expect(() => loadConfig({ ...postgres, API_PROCESSES: "2" })).toThrow(new ConfigError(needs));
    expect(() =>
      loadConfig({ ...postgres, ROLE: "api", API_PROCESSES: "2", METRICS_TOKEN: "a-token-of-16-characters" }),
    ).toThrow(
      new ConfigError(
        "Invalid configuration: METRICS_TOKEN: with API_PROCESSES above 1, /metrics on the API's port would answer for one process at a time: use METRICS_PORT (process i serves METRICS_PORT + i)",
      ),
    );
  });

  it("takes an empty MODERATION_REFUSED_TERMS as no refused term, and other empty variables as unset", () => {
    const config = loadConfig({ MODERATION_REFUSED_TERMS: "", PORT: "" });
    expect(config.generations.refusedTerms).toEqual([]);
    expect(config.http.port).toBe(3000);
  });
});
