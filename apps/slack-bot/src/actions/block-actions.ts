import type { BlockAction } from "@slack/bolt";

/**
 * The ids of the buttons chat-core makes (encodeAction), by kind: `imagehub:buy:<n>:<image id>[:<generation
 * id>]`, `imagehub:retry:<generation id>`, `imagehub:again:…`, `imagehub:show:…`, `imagehub:vary:<n>:<generation id>`. decodeAction reads the rest.
 */
export const BUY_ACTION_ID = /^imagehub:buy:/;
/** U n: `imagehub:upscale:<n>:<image id>:<generation id>`. */
export const UPSCALE_ACTION_ID = /^imagehub:upscale:/;
export const RETRY_ACTION_ID = /^imagehub:retry:/;
/** Again and V n: each starts a new generation. */
export const NEW_GENERATION_ACTION_ID = /^imagehub:(again|vary):/;
export const SHOW_ACTION_ID = /^imagehub:show:/;

/** The workspace a click came from (a user's own team for org-wide installs). */
export function teamOf(body: BlockAction): string {
  const teamId = body.team?.id ?? body.user.team_id;
  if (!teamId) throw new Error("the click does not say its workspace");
  return teamId;
}

/** The channel of the message the clicked button is on. */
export function channelOf(body: BlockAction): string {
  const channelId = body.channel?.id ?? body.container.channel_id;
  if (typeof channelId !== "string") throw new Error("the click does not say its channel");
  return channelId;
}
