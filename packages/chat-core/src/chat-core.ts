import { join } from "node:path";
import type { ImageGeneration } from "@imagehub/domain";
import type { Logger } from "./bot-logger.js";
import type { ChatConfig } from "./chat-config.js";
import { ChatGenerations } from "./chat-generations.js";
import type { ChatPlatform, ChatTarget } from "./chat-target.js";
import { JsonFileStore } from "./json-file-store.js";
import { SecretBox } from "./secret-box.js";
import { type TeamConnectionRecord, TeamConnections } from "./team-connections.js";
import { UsageLimits } from "./usage-limits.js";
import { WebhookReceiver } from "./webhook-receiver.js";

export interface ChatCore {
  store: JsonFileStore;
  secretBox: SecretBox;
  connections: TeamConnections;
  generations: ChatGenerations;
  receiver: WebhookReceiver;
}

/** Everything a bot shares with the other, wired from its configuration; its state is read from disk. */
export async function openChatCore(
  platform: ChatPlatform,
  config: ChatConfig,
  onGeneration: (target: ChatTarget, generation: ImageGeneration) => Promise<void>,
  logger: Logger,
): Promise<ChatCore> {
  const store = await JsonFileStore.open(join(config.dataDir, `${platform}-bot.json`));
  const secretBox = new SecretBox(config.encryptionKey);
  const connections = new TeamConnections({
    platform,
    records: store.collection<TeamConnectionRecord>("teams"),
    secretBox,
    apiBaseUrl: config.apiBaseUrl,
    publicUrl: config.publicUrl,
    defaultApiKey: config.defaultApiKey,
    defaultKeyTeams: config.defaultKeyTeams,
  });
  return {
    store,
    secretBox,
    connections,
    generations: new ChatGenerations(platform, connections, new UsageLimits(config.limits), secretBox),
    receiver: new WebhookReceiver({ platform, connections, secretBox, onGeneration, logger }),
  };
}
