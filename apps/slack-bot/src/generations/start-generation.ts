import type { GenerateOptions } from "@imagehub/chat-core";
import type { webApi } from "@slack/bolt";
import { refusalText } from "../blocks/command-answers.js";
import type { SlackServices } from "../slack-services.js";

export interface StartGenerationInput {
  /** The client of the request, acting for its workspace. */
  client: webApi.WebClient;
  teamId: string;
  channelId: string;
  userId: string;
  options: GenerateOptions;
  /** Tells the person who asked, and them alone. */
  tellUser: (text: string) => Promise<unknown>;
}

/** `/generate` and the modal's submission: the shared flow posts the status message and creates. */
export async function startGeneration(
  { core, statusMessages }: SlackServices,
  { client, teamId, channelId, userId, options, tellUser }: StartGenerationInput,
): Promise<void> {
  const outcome = await core.generations.start({
    teamId,
    channelId,
    userId,
    options,
    postStatus: (view) => statusMessages.post(client, channelId, view),
    withdrawStatus: (ts) => statusMessages.withdraw(client, channelId, ts),
  });
  if (outcome.kind === "refused") await tellUser(refusalText(outcome.problems));
}
