import type { CreditBucketType } from "@imagehub/db";

/**
 * What the domain refuses, raised below the services (repositories, the state machine, the credit ledger)
 * without knowing of HTTP: the one exception filter answers each kind with its status
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

/** What the request names does not exist, or not for the caller. */
export class NotFound extends DomainError {}

/** The caller may not do this: its plan or role does not allow it. */
export class Forbidden extends DomainError {}

/** The request clashes with the current state: a status that forbids it, a limit reached, a name taken. */
export class Conflict extends DomainError {}

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
