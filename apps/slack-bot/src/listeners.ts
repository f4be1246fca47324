import type { App } from "@slack/bolt";
import * as actions from "./actions/index.js";
import * as commands from "./commands/index.js";
import * as events from "./events/index.js";
import { handleListenerErrors } from "./listener-errors.js";
import type { SlackServices } from "./slack-services.js";
import * as views from "./views/index.js";

/** Every listener of the app, wired in this one place. */
export function registerListeners(app: App, services: SlackServices): void {
  commands.register(app, services);
  views.register(app, services);
  actions.register(app, services);
  events.register(app, services);
  handleListenerErrors(app, services.locales);
}
