import { ApiError, NetworkError, TimeoutError } from "@imagehub/client";
import { NotConnectedError } from "./team-connections.js";

/** A refusal of the bot's own, told to the person who acted in its own words. */
export class ChatRefusal extends Error {}

/** A generation of the team's imagehub account that another team (or no chat) started. */
export class NotThisTeamError extends ChatRefusal {
  constructor() {
    super("This generation was not started from this team's chat.");
  }
}

/**
 * What to tell a chat user when a call failed, or undefined when it is a fault of the bot itself (the
 * caller logs it and says something went wrong).
 */
export function describeFailure(error: unknown): string | undefined {
  if (error instanceof NotConnectedError || error instanceof ChatRefusal) return error.message;
  if (error instanceof ApiError) {
    const details = error.messages.join("; ");
    switch (error.statusCode) {
      case 401:
        return "imagehub refused this team's API key: an admin connects a valid one with `/imagehub connect`.";
      case 402:
        return `Not enough credits: ${details}`;
      case 403:
        return `Not allowed: ${details}`;
      case 404:
        return `Not found: ${details}`;
      case 429:
        return "imagehub is busy right now; try again in a moment.";
      default:
        return error.statusCode < 500 ? details : "imagehub had a problem; try again in a moment.";
    }
  }
  if (error instanceof NetworkError || error instanceof TimeoutError) {
    return "imagehub did not answer; try again in a moment.";
  }
  return undefined;
}
