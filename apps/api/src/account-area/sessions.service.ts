import { randomBytes, timingSafeEqual } from "node:crypto";
import type { Account } from "@imagehub/db";
import type {
  AccountProfile,
  AccountSessionList,
  RedeemLinkRequest,
  Session,
  SignInRequest,
  SignUpRequest,
  WebAreaSettings,
} from "@imagehub/domain";
import { Inject, Injectable } from "@nestjs/common";
import { AccountsService } from "../accounts/accounts.service.js";
import type { Caller } from "../accounts/api-key-auth.service.js";
import { APP_CONFIG, type AppConfig } from "../common/config.js";
import {
  Forbidden,
  Gone,
  InvalidRequest,
  NotAuthenticated,
  NotFound,
  TooManyAttempts,
} from "../common/domain-errors.js";
import { FailureDelayRepository, type FailurePolicy, secondsOf } from "../common/failure-delay.repository.js";
import { readAccountLimits } from "../common/rate-limits.js";
import { AccountAreaRepository } from "./account-area.repository.js";
import { hashPassword, isPasswordCorrect } from "./passwords.js";
import { clearedSessionCookie, sessionCookie } from "./session-cookie.js";
import { hashToken, randomToken } from "./sign-in-links.service.js";
import { SignInThrottleRepository } from "./sign-in-throttle.repository.js";

/** A signed-in request: its session and the caller the account's services act for. */
export interface SignedIn {
  sessionId: string;
  csrfToken: string;
  caller: Caller;
}

/** A session answer and the Set-Cookie header that goes with it. */
export interface WithCookie<T> {
  body: T;
  cookie: string;
}

@Injectable()
export class SessionsService {
  constructor(
    private readonly area: AccountAreaRepository,
    private readonly throttle: SignInThrottleRepository,
    private readonly failures: FailureDelayRepository,
    private readonly accounts: AccountsService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  settings(): WebAreaSettings {
    return {
      isSignUpOpen: this.config.webArea.isSignUpOpen,
      isMailConfigured: this.config.mail !== undefined,
    };
  }

  async signIn(request: SignInRequest, address: string, userAgent?: string): Promise<WithCookie<Session>> {
    const { attempts, windowEndsInSeconds } = await this.throttle.countAttempt(address);
    if (attempts > this.config.webArea.signInAttemptsPerMinute) {
      throw new TooManyAttempts(
        `too many sign-in attempts from this address; try again in ${windowEndsInSeconds} s`,
        windowEndsInSeconds,
      );
    }
    // Counted by the email given, whether an account has it or not: both answer alike.
    const email = request.email.trim().toLowerCase();
    const subjects = [`sign-in:${email}:${address}`, `sign-in:${email}`];
    const waitMs = Math.max(...(await Promise.all(subjects.map((subject) => this.failures.waitOf(subject)))));
    if (waitMs > 0) {
      const seconds = secondsOf(waitMs);
      throw new TooManyAttempts(
        `too many failed sign-ins for this email; try again in ${seconds} s`,
        seconds,
      );
    }
    const account = await this.area.findAccountByEmail(request.email);
    if (!(await isPasswordCorrect(account?.passwordHash ?? null, request.password)) || !account) {
      const [fromAddress, fromAnywhere] = this.signInPolicies();
      await Promise.all([
        this.failures.recordFailure(subjects[0] as string, fromAddress),
        this.failures.recordFailure(subjects[1] as string, fromAnywhere),
      ]);
      throw new NotAuthenticated("wrong email or password");
    }
    await Promise.all(subjects.map((subject) => this.failures.forget(subject)));
    return this.start(account, userAgent);
  }

  /**
   * From one address: SIGN_IN_FREE_FAILURES, then delays up to SIGN_IN_MAX_DELAY_SECONDS. From every
   * address together (a guesser with many addresses): ten times as many, then delays of a minute at most,
   * which is all that the owner, signing in from elsewhere, can be made to wait.
   */
  private signInPolicies(): [FailurePolicy, FailurePolicy] {
    const { freeFailures, maxDelaySeconds } = this.config.webArea;
    return [
      { freeFailures, maxDelayMs: maxDelaySeconds * 1000 },
      { freeFailures: freeFailures * 10, maxDelayMs: Math.min(60, maxDelaySeconds) * 1000 },
    ];
  }

  async signUp(request: SignUpRequest, userAgent?: string): Promise<WithCookie<Session>> {
    if (!this.config.webArea.isSignUpOpen) throw new Forbidden("sign-up is closed on this server");
    const account = await this.accounts.createAccount({
      email: request.email,
      name: request.name,
      plan: "standard",
      credits: this.config.webArea.signUpCredits,
      passwordHash: await hashPassword(request.password),
      actor: "sign-up",
    });
    return this.start(account, userAgent);
  }

  async redeemLink(request: RedeemLinkRequest, userAgent?: string): Promise<WithCookie<Session>> {
    const tokenHash = hashToken(request.token);
    const now = new Date();
    const link = await this.area.findLivePurpose(tokenHash, now);
    if (link?.purpose === "set-password" && request.password === undefined) {
      throw new InvalidRequest("password: is required to accept an invitation");
    }
    if (link?.purpose === "reset-password" && request.password === undefined) {
      throw new InvalidRequest("password: is required to reset the password");
    }
    const accountId = link ? await this.area.spendLink(tokenHash, now) : null;
    const account = accountId ? await this.area.findAccount(accountId) : null;
    if (!account) throw new Gone("this link is unknown, already used or expired; ask for a new one");
    // A reset is for an owner who lost control of the password: whoever used it is signed out everywhere.
    if (link?.purpose === "reset-password") await this.area.deleteSessionsOf(account.id);
    if (request.password === undefined) return this.start(account, userAgent);
    const passwordHash = await hashPassword(request.password);
    await this.area.setPassword(account.id, passwordHash);
    return this.start({ ...account, passwordHash }, userAgent);
  }

  /** The session of a cookie's token, or undefined when it is unknown or expired. */
  async authenticate(token: string): Promise<SignedIn | undefined> {
    const session = await this.area.findLiveSession(hashToken(token), new Date());
    if (!session || session.account.disabledAt) return undefined;
    const { account, ...rest } = session;
    return {
      sessionId: rest.id,
      csrfToken: rest.csrfToken,
      caller: {
        account,
        apiKey: null,
        actor: `session:${rest.id}`,
        limits: readAccountLimits(account.limits),
      },
    };
  }

  isCsrfTokenValid(signedIn: SignedIn, presented: string | undefined): boolean {
    const expected = Buffer.from(signedIn.csrfToken);
    const given = Buffer.from(presented ?? "");
    return given.length === expected.length && timingSafeEqual(given, expected);
  }

  describe(signedIn: SignedIn): Session {
    return { account: profileOf(signedIn.caller.account), csrfToken: signedIn.csrfToken };
  }

  async signOut(signedIn: SignedIn): Promise<WithCookie<undefined>> {
    await this.area.deleteSession(signedIn.sessionId);
    return { body: undefined, cookie: clearedSessionCookie(this.config.webArea.hasSecureCookies) };
  }

  async signOutEverywhere(signedIn: SignedIn): Promise<WithCookie<undefined>> {
    await this.area.deleteSessionsOf(signedIn.caller.account.id);
    return { body: undefined, cookie: clearedSessionCookie(this.config.webArea.hasSecureCookies) };
  }

  async list(signedIn: SignedIn): Promise<AccountSessionList> {
    const sessions = await this.area.listLiveSessions(signedIn.caller.account.id, new Date());
    return {
      sessions: sessions.map((session) => ({
        id: session.id,
        createdAt: session.createdAt.toISOString(),
        expiresAt: session.expiresAt.toISOString(),
        userAgent: session.userAgent,
        isCurrent: session.id === signedIn.sessionId,
      })),
    };
  }

  async end(signedIn: SignedIn, sessionId: string): Promise<void> {
    if (!(await this.area.deleteSessionOf(signedIn.caller.account.id, sessionId))) {
      throw new NotFound(`no live session ${sessionId} in this account`);
    }
  }

  private async start(account: Account, userAgent: string | undefined): Promise<WithCookie<Session>> {
    if (account.disabledAt) throw new Forbidden("this account is disabled: ask an admin");
    const token = randomToken();
    const { sessionTtlHours, hasSecureCookies } = this.config.webArea;
    const session = await this.area.createSession({
      accountId: account.id,
      tokenHash: hashToken(token),
      csrfToken: randomBytes(24).toString("base64url"),
      expiresAt: new Date(Date.now() + sessionTtlHours * 3_600_000),
      userAgent: userAgent?.slice(0, 300) ?? null,
    });
    return {
      body: { account: profileOf(account), csrfToken: session.csrfToken },
      cookie: sessionCookie(token, { maxAgeSeconds: sessionTtlHours * 3600, isSecure: hasSecureCookies }),
    };
  }
}

function profileOf(account: Account): AccountProfile {
  return {
    id: account.id,
    email: account.email,
    name: account.name,
    plan: account.plan,
    isAdmin: account.isAdmin,
    hasPassword: account.passwordHash !== null,
  };
}
