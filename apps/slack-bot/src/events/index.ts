import type { App } from "@slack/bolt";
import type { SlackServices } from "../slack-services.js";
import { registerAppUninstalled } from "./app-uninstalled.event.js";

/** Events API listeners; Bolt acknowledges events itself. */
export function register(app: App, services: SlackServices): void {
  registerAppUninstalled(app, services);
}
