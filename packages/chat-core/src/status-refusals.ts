/**
 * How the platforms' refusals of a status message reach chat-core's queue, and the forms a message falls back
 * through: each bot turns its platform's answers into these.
 */

/**
 * The platform says this message is gone for good (deleted, its channel removed or archived, the bot
 * removed): its updates end, the requester is told elsewhere, and the delivery that brought them succeeds.
 */
export class MessageGoneError extends Error {}

/**
 * The platform refused the form a message was shown in (an image it could not fetch, a file too large):
 * the next, plainer form is tried at once.
 */
export class FormRefusedError extends Error {}

/**
 * The platform refuses the bot a permission this message needs (a channel hidden from it, a right taken
 * away, a scope never granted): not gone, as someone may grant it. The message keeps its desired state and
 * is tried again until then; its requester is told once what is missing, in the platform's words.
 */
export class PermissionMissingError extends Error {
  constructor(
    /** The permission as whoever grants it knows it (e.g. "View Channel", "the `chat:write` scope"). */
    readonly missing: string,
    reason: string,
  ) {
    super(reason);
  }
}

/**
 * How a finished generation's message shows its images, from the richest to the plainest: the grid as the
 * platform reads it best (a link it fetches itself, where it can), the grid uploaded by the bot, then text
 * with a link to each image. A form the platform keeps refusing gives way to the next.
 */
export const MESSAGE_FORMS = ["grid", "uploaded-grid", "links"] as const;
export type MessageForm = (typeof MESSAGE_FORMS)[number];
