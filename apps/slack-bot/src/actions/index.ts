import type { App } from "@slack/bolt";
import type { SlackServices } from "../slack-services.js";
import { registerBuyAction, registerUpscaleAction } from "./buy.action.js";
import { registerNewGenerationActions } from "./new-generation.action.js";
import { registerRetryAction } from "./retry.action.js";
import { registerShowAction } from "./show.action.js";

/** The buttons of the status message. */
export function register(app: App, services: SlackServices): void {
  registerBuyAction(app, services);
  registerUpscaleAction(app, services);
  registerRetryAction(app, services);
  registerNewGenerationActions(app, services);
  registerShowAction(app, services);
}
