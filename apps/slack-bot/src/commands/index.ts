import type { App } from "@slack/bolt";
import type { SlackServices } from "../slack-services.js";
import { registerGenerateCommand } from "./generate.command.js";
import { registerImagehubCommand } from "./imagehub.command.js";

/** The slash commands; slack-app-manifest.json declares the same two. */
export function register(app: App, services: SlackServices): void {
  registerGenerateCommand(app, services);
  registerImagehubCommand(app, services);
}
