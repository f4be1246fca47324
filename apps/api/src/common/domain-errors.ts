import type { CreditBucketType } from "@imagehub/db";

/**
 * What the domain refuses, raised by the services and below them (repositories, the state machine, the
 * credit ledger) without knowing of HTTP: the one exception filter answers each kind with its status
 * (`refusalBodyOf`). The messages are the client's to read.
 */
export abstract class DomainError extends Error {
  readonly messages: string[];

  constructor(message: string | string[]) {
    const messages = Array.isArray(message) ? message : [message];
    super(messages.join("; "));
    this.messages = messages;
  }
}

/** The request breaks a rule that only the stored state can check: a prompt the generation's mode forbids. */
export class InvalidRequest extends DomainError {}

/** The caller is not who it must be: no key or a key not valid, a wrong password, no session. */
export class NotAuthenticated extends DomainError {}

/** The caller is known but may not do this: its plan or role, a disabled account, a closed sign-up. */
export class Forbidden extends DomainError {}

/** What the request names does not exist, or not for the caller. */
export class NotFound extends DomainError {}

/** The request clashes with the current state: a status that forbids it, a limit reached, a name taken. */
export class Conflict extends DomainError {}

/** What the request names existed once and is gone for good: a used or expired link. */
export class Gone extends DomainError {}

/**
 * A credit bucket cannot pay: raised inside a transaction to roll it back whole. `message`: what the
 * client is told, when the service knows better than the bucket's name.
 */
export class NotEnoughCredits extends DomainError {
  constructor(
    readonly type: CreditBucketType,
    readonly needed: number,
    readonly balance: number,
    message = `not enough ${type} credits`,
  ) {
    super(message);
  }
}

/** Too many attempts (sign-ins, invalid keys) from one address or for one account: wait before the next. */
export class TooManyAttempts extends DomainError {
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(message);
  }
}

/** A part the request needs cannot serve it now: the process is stopping, a dependency is away. */
export class Unavailable extends DomainError {}
