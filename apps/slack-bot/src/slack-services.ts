import type { ChatCore, Logger } from "@imagehub/chat-core";
import type { StatusMessages } from "./generations/status-messages.js";
import type { SealedInstallationStore } from "./installations/sealed-installation-store.js";
import type { UserLocales } from "./user-locales.js";

/** What the listeners work with; built once in slack-bot.ts. */
export interface SlackServices {
  core: ChatCore;
  statusMessages: StatusMessages;
  /** The language each person is answered in. */
  locales: UserLocales;
  /** Set for OAuth distribution (many workspaces). */
  installations: SealedInstallationStore | undefined;
  logger: Logger;
}
