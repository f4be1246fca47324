import { ApiError, NetworkError, TimeoutError } from "@imagehub/client";
import type { Messages } from "./i18n/en.js";
import { type Locale, messagesFor } from "./i18n/locale.js";
import { NotConnectedError } from "./team-connections.js";

/** A refusal of the bot's own, told to the person who acted in its own words, in their language. */
export class ChatRefusal extends Error {
  constructor(readonly describe: (messages: Messages) => string) {
    super(describe(messagesFor()));
  }
}

/** A generation of the team's imagehub account that another team (or no chat) started. */
export class NotThisTeamError extends ChatRefusal {
  constructor() {
    super((messages) => messages.failures.notThisTeam);
  }
}

/**
 * What to tell a chat user when a call failed, in their language, or undefined when it is a fault of the
 * bot itself (the caller logs it and says something went wrong).
 */
export function describeFailure(error: unknown, locale?: Locale): string | undefined {
  const { failures } = messagesFor(locale);
  if (error instanceof NotConnectedError) return failures.notConnected;
  if (error instanceof ChatRefusal) return error.describe(messagesFor(locale));
  if (error instanceof ApiError) {
    const details = error.messages.join("; ");
    switch (error.statusCode) {
      case 401:
        return failures.keyRefused;
      case 402:
        return failures.noCredits(details);
      case 403:
        return failures.notAllowed(details);
      case 404:
        return failures.notFound(details);
      case 429:
        return failures.busy;
      default:
        return error.statusCode < 500 ? details : failures.apiProblem;
    }
  }
  if (error instanceof NetworkError || error instanceof TimeoutError) return failures.noAnswer;
  return undefined;
}
