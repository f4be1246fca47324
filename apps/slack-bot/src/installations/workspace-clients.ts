import { webApi as slackWebApi, type webApi } from "@slack/bolt";

/** A workspace's bot token: the configured one, or its installation's (refreshed when it rotates). */
export type BotTokenFor = (teamId: string) => Promise<string>;

/** The app is not (or no longer) installed in the workspace: there is no token to act with. */
export class NotInstalledError extends Error {}

/**
 * Web API clients for work that does not come from a Slack request (webhook events of imagehub), each
 * acting with the bot token of the workspace it writes to.
 */
export class WorkspaceClients {
  /** Per workspace, replaced when its token has rotated. */
  private readonly clients = new Map<string, { token: string; client: webApi.WebClient }>();

  constructor(
    private readonly botTokenFor: BotTokenFor,
    private readonly clientOptions: webApi.WebClientOptions,
  ) {}

  async clientFor(teamId: string): Promise<webApi.WebClient> {
    const token = await this.botTokenFor(teamId);
    const known = this.clients.get(teamId);
    if (known?.token === token) return known.client;
    const client = new slackWebApi.WebClient(token, this.clientOptions);
    this.clients.set(teamId, { token, client });
    return client;
  }
}
