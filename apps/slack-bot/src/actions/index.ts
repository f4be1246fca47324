import type { App } from "@slack/bolt";
import type { SlackServices } from "../slack-services.js";
import { registerAgainAction } from "./again.action.js";
import { registerBuyAction } from "./buy.action.js";
import { registerRetryAction } from "./retry.action.js";
import { registerShowAction } from "./show.action.js";

/** The buttons of the status message. */
export function register(app: App, services: SlackServices): void {
  registerBuyAction(app, services);
  registerRetryAction(app, services);
  registerAgainAction(app, services);
  registerShowAction(app, services);
}
