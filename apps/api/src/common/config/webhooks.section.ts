import { z } from "zod";
import { booleanFlag, section } from "./variables.js";

export const WebhooksSection = section(
  {
    WEBHOOK_ALLOW_HTTP: booleanFlag.default(false),
    WEBHOOK_ALLOW_PRIVATE: booleanFlag.default(false),
    WEBHOOK_MAX_PER_ACCOUNT: z.coerce.number().int().min(1).max(1000).default(10),
    WEBHOOK_TIMEOUT_SECONDS: z.coerce.number().min(0.1).max(60).default(15),
    WEBHOOK_RETRY_SCHEDULE: z
      .string()
      .regex(/^\s*\d+(\.\d+)?(\s*,\s*\d+(\.\d+)?)*\s*$/, "must be a comma-separated list of seconds")
      .default("5,300,1800,7200,18000,36000,36000"),
    WEBHOOK_DISABLE_AFTER_SECONDS: z.coerce
      .number()
      .min(1)
      .max(365 * 24 * 3600)
      .default(5 * 24 * 3600),
    WEBHOOK_CONCURRENCY: z.coerce.number().int().min(1).max(1000).default(100),
    WEBHOOK_RELAY_INTERVAL_MS: z.coerce.number().int().min(10).max(60_000).default(100),
    WEBHOOK_RELAY_LISTEN: booleanFlag.default(true),
    WEBHOOK_SWEEP_SECONDS: z.coerce.number().int().min(1).max(3600).default(30),
  },
  (values) => ({
    /** `http://` URLs accepted (development); otherwise `https://` only. */
    allowHttp: values.WEBHOOK_ALLOW_HTTP,
    /** Loopback, private, link-local and metadata addresses accepted (a bot on the same network). */
    allowPrivate: values.WEBHOOK_ALLOW_PRIVATE,
    maxPerAccount: values.WEBHOOK_MAX_PER_ACCOUNT,
    /** A 2xx must arrive within this time. */
    timeoutSeconds: values.WEBHOOK_TIMEOUT_SECONDS,
    /** Seconds to wait before each retry; one attempt plus one per entry in all. */
    retrySeconds: values.WEBHOOK_RETRY_SCHEDULE.split(",").map(Number),
    /**
     * A webhook whose deliveries have failed for this long with no success in between is disabled until it
     * is re-enabled; one success ends the run. Svix and Stripe count in days, not attempts: a short outage
     * during a burst of events must not disable it.
     */
    disableAfterSeconds: values.WEBHOOK_DISABLE_AFTER_SECONDS,
    /** Deliveries one worker process makes at once. */
    concurrency: values.WEBHOOK_CONCURRENCY,
    /** How often the relay looks for new events when it found none. */
    relayIntervalMs: values.WEBHOOK_RELAY_INTERVAL_MS,
    /**
     * The relay also wakes as events commit (LISTEN on the database): off where the connection cannot hold a
     * LISTEN (a pooler in transaction mode), and the interval alone serves.
     */
    relayListens: values.WEBHOOK_RELAY_LISTEN,
    /** How often deliveries overdue by this long (their job lost with Redis' data) are queued again. */
    sweepSeconds: values.WEBHOOK_SWEEP_SECONDS,
  }),
);
