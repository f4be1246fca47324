import type { App } from "@slack/bolt";
import type { SlackServices } from "../slack-services.js";
import { registerGenerateModal } from "./generate-modal.view.js";

export function register(app: App, services: SlackServices): void {
  registerGenerateModal(app, services);
}
