import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { CREDIT_BUCKET_TYPES, type CreditBucketType } from "@imagehub/domain";
import { z } from "zod";
import { booleanFlag, publicBaseUrlOf, SHARED_VARIABLES, section } from "./variables.js";

const { PORT, PUBLIC_BASE_URL } = SHARED_VARIABLES;

/** The account web area (apps/web) and its sign-in. */
export const WebAreaSection = section(
  {
    PORT,
    PUBLIC_BASE_URL,
    WEB_DIR: z.string().min(1).optional(),
    SIGN_UP_OPEN: booleanFlag.default(false),
    SIGN_UP_CREDITS: z
      .string()
      .regex(
        new RegExp(`^((${CREDIT_BUCKET_TYPES.join("|")})=\\d+)?(,(${CREDIT_BUCKET_TYPES.join("|")})=\\d+)*$`),
        "must be a comma-separated list of bucket=amount, e.g. f_images=10,f_images_print=3",
      )
      .default("f_images=10,f_images_print=3"),
    SESSION_TTL_HOURS: z.coerce
      .number()
      .int()
      .min(1)
      .max(24 * 365)
      .default(24 * 14),
    SIGN_IN_FREE_FAILURES: z.coerce.number().int().min(1).max(100).default(5),
    SIGN_IN_MAX_DELAY_SECONDS: z.coerce
      .number()
      .int()
      .min(1)
      .max(24 * 3600)
      .default(300),
    SIGN_IN_ATTEMPTS_PER_MINUTE: z.coerce.number().int().min(1).max(10_000).default(20),
  },
  (values) => ({
    /** The built single-page app, served under `/`. */
    webDir: resolve(values.WEB_DIR ?? fileURLToPath(new URL("../../../../web/dist", import.meta.url))),
    /** Cookies get `Secure` when the public address is https. */
    hasSecureCookies: publicBaseUrlOf(values).startsWith("https:"),
    /** Anyone may create an account from the sign-in page, starting with `signUpCredits`. */
    isSignUpOpen: values.SIGN_UP_OPEN,
    signUpCredits: Object.fromEntries(
      values.SIGN_UP_CREDITS.split(",")
        .filter(Boolean)
        .map((pair) => pair.split("="))
        .map(([type, amount]) => [type, Number(amount)]),
    ) as Partial<Record<CreditBucketType, number>>,
    sessionTtlHours: values.SESSION_TTL_HOURS,
    /**
     * Failed sign-ins to one email from one address before each next attempt waits, 1 s then twice as long
     * each time up to `maxDelaySeconds` (ten times as many from every address together, up to a minute):
     * slow for a guesser, never a lock that someone else's failures could put on an account.
     */
    freeFailures: values.SIGN_IN_FREE_FAILURES,
    maxDelaySeconds: values.SIGN_IN_MAX_DELAY_SECONDS,
    /** Sign-in attempts one address may make per minute, whatever the account. */
    signInAttemptsPerMinute: values.SIGN_IN_ATTEMPTS_PER_MINUTE,
  }),
);

/** Invitations are mailed through this SMTP server; absent unless SMTP_URL is set. */
export const MailSection = section(
  {
    PORT,
    PUBLIC_BASE_URL,
    SMTP_URL: z
      .url()
      .regex(/^smtps?:\/\//, "must start with smtp:// or smtps://")
      .optional(),
    SMTP_FROM: z.string().min(3).max(320).optional(),
    SMTP_TIMEOUT_SECONDS: z.coerce.number().min(1).max(300).default(20),
  },
  (values) =>
    values.SMTP_URL
      ? {
          /** smtp://user:password@host:587 (STARTTLS when the server offers it) or smtps://…:465 (TLS from the start). */
          smtpUrl: values.SMTP_URL,
          /** The From header: SMTP_FROM, else imagehub at the public address's host. */
          from: values.SMTP_FROM ?? `imagehub <no-reply@${new URL(publicBaseUrlOf(values)).hostname}>`,
          /** Connecting, the greeting and each command must each answer within this time. */
          timeoutMs: values.SMTP_TIMEOUT_SECONDS * 1000,
        }
      : undefined,
);
