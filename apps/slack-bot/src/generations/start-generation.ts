import type { GenerateOptions, Locale, StartOutcome, StartPlace } from "@imagehub/chat-core";
import type { webApi } from "@slack/bolt";
import { refusalText } from "../blocks/command-answers.js";
import type { SlackServices } from "../slack-services.js";

export interface StartGenerationInput {
  /** The client of the request, acting for its workspace. */
  client: webApi.WebClient;
  teamId: string;
  channelId: string;
  userId: string;
  /** The requester's language: the status message and every answer to them are worded in it. */
  locale: Locale;
  /** `/generate`'s options, or another start (Again) given the place. */
  start: GenerateOptions | ((place: StartPlace) => Promise<StartOutcome>);
  /** Tells the person who asked, and them alone. */
  tellUser: (text: string) => Promise<unknown>;
}

/** `/generate`, the modal's submission and Again: the shared flow posts the status message and creates. */
export async function startGeneration(
  { core, statusMessages }: SlackServices,
  { client, teamId, channelId, userId, locale, start, tellUser }: StartGenerationInput,
): Promise<void> {
  const place: StartPlace = {
    teamId,
    channelId,
    userId,
    locale,
    postStatus: (view) => statusMessages.post(client, { channelId, userId }, view),
    withdrawStatus: (ts) => statusMessages.withdraw(client, channelId, ts),
  };
  const outcome =
    typeof start === "function"
      ? await start(place)
      : await core.generations.start({ ...place, options: start });
  if (outcome.kind === "refused") await tellUser(refusalText(outcome.problems, locale));
}
