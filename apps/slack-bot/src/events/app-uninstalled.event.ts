import type { App } from "@slack/bolt";
import type { SlackServices } from "../slack-services.js";

/** Uninstalled: the workspace's imagehub webhook and key go, and with OAuth its installation. */
export function registerAppUninstalled(app: App, { core, installations }: SlackServices): void {
  app.event("app_uninstalled", async ({ body, context }) => {
    const teamId = context.teamId ?? body.team_id;
    await core.connections.disconnect(teamId);
    await installations?.deleteInstallation({
      teamId,
      enterpriseId: context.enterpriseId,
      isEnterpriseInstall: context.isEnterpriseInstall === true,
    });
  });
}
