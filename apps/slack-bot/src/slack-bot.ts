import type { RequestListener, Server } from "node:http";
import type { AddressInfo } from "node:net";
import {
  type ChatCore,
  createBotLogger,
  fetchPreviews,
  messagesFor,
  openChatCore,
  SecretBox,
} from "@imagehub/chat-core";
import {
  App,
  type CustomRoute,
  HTTPReceiver,
  type Receiver,
  SocketModeReceiver,
  type webApi,
} from "@slack/bolt";
import type { Logger } from "@slack/logger";
import type { Logger as PinoLogger } from "pino";
import { BoltPinoLogger } from "./bolt-logger.js";
import type { SlackAuth, SlackConfig } from "./config.js";
import { GRID_PATH_PREFIX, GridImages } from "./generations/grid-images.js";
import { StatusMessages, type UploadedPreviews } from "./generations/status-messages.js";
import {
  type InstallationRecord,
  SealedInstallationStore,
} from "./installations/sealed-installation-store.js";
import { type BotTokenFor, NotInstalledError, WorkspaceClients } from "./installations/workspace-clients.js";
import { registerListeners } from "./listeners.js";
import { BOT_SCOPES, grantScopesAdvice, missingScopes } from "./slack-scopes.js";
import { UserLocales } from "./user-locales.js";

/** Where imagehub posts a connection's events (chat-core's WebhookReceiver reads the id). */
const WEBHOOK_PATH_PREFIX = "/imagehub/webhooks/";
const WEBHOOK_ROUTE = `${WEBHOOK_PATH_PREFIX}:connectionId`;
const OAUTH_REDIRECT_PATH = "/slack/oauth_redirect";
/** Each Web API call: answered within this, else abandoned (the SDK waits forever by default). */
const SLACK_CALL_TIMEOUT_MS = 10_000;
/** The SDK's own retries of a failed call (its default, ten over half an hour, would outlast any lease). */
const SLACK_CALL_RETRIES = 2;

export interface SlackBot {
  app: App;
  /** chat-core's services: connections, generations, the status updates queue. */
  core: ChatCore;
  /** The port of the HTTP server: Slack's requests in HTTP mode, imagehub's webhooks and OAuth always. */
  port: number;
  stop(): Promise<void>;
}

/**
 * Starts the bot: chat-core's state from disk, the Bolt app with its receiver (HTTP, or Socket Mode when an
 * app token is configured), the listeners, then the default key's webhook subscription.
 */
export async function startSlackBot(
  config: SlackConfig,
  botLogger: PinoLogger = createBotLogger("imagehub-slack", config.chat.logLevel),
): Promise<SlackBot> {
  const logger = new BoltPinoLogger(botLogger, config.logLevel);
  let statusMessages: StatusMessages | undefined;
  // Webhooks are subscribed once the app is started, so this does not happen but after a misconfiguration.
  const ready = () => {
    if (!statusMessages) throw new Error("a webhook event arrived before the bot was ready");
    return statusMessages;
  };
  const core = await openChatCore(
    "slack",
    config.chat,
    {
      showGeneration: (target, generation, form) => ready().show(target, generation, form),
      announceEnd: (target, generation) => ready().announce(target, generation),
      tellRequester: (target, generation, reason) => ready().tellRequester(target, generation, reason),
      tellPermissionMissing: (target, generation, missing) =>
        ready().tellPermissionMissing(target, generation, missing),
      groupLabel: (groupId, locale) => messagesFor(locale).slack.groupMembers(`<!subteam^${groupId}>`),
    },
    botLogger,
  );
  // A start that fails lets go of what it opened: the store's connections, the listening port.
  let startedApp: App | undefined;
  try {
    const installations =
      config.auth.kind === "oauth"
        ? new SealedInstallationStore(
            core.store.collection<InstallationRecord>("installations"),
            new SecretBox(config.chat.encryptionKey),
          )
        : undefined;
    const clientOptions: webApi.WebClientOptions = {
      logger,
      // A call that hangs ends, and fails over to the status queue's own retries, well within a lease.
      timeout: SLACK_CALL_TIMEOUT_MS,
      retryConfig: { retries: SLACK_CALL_RETRIES },
      ...(config.apiUrl !== undefined && { slackApiUrl: config.apiUrl }),
    };
    const receiver = createReceiver(config, {
      logger,
      clientOptions,
      installations,
      webhookListener: core.receiver.listener,
    });
    const app = new App({
      receiver,
      logger,
      logLevel: config.logLevel,
      clientOptions,
      extendedErrorHandler: true,
      // init() below checks the token with auth.test and fails the start when Slack refuses it.
      deferInitialization: true,
      ...(config.auth.kind === "single-workspace" && { token: config.auth.botToken }),
    });
    await app.init();
    if (config.auth.kind === "single-workspace") {
      // The one workspace this token belongs to is the deployment's own team: the default key serves it.
      const { team_id: teamId, response_metadata } = await app.client.auth.test({
        token: config.auth.botToken,
      });
      if (teamId) core.connections.allowDefaultKey(teamId);
      const missing = missingScopes(response_metadata?.scopes ?? BOT_SCOPES);
      // The bot still serves what the scopes it has allow; the person who meets a missing one is told too.
      if (missing.length > 0) botLogger.error({ missing }, grantScopesAdvice(missing));
    }
    const grids = new GridImages({
      core,
      secretBox: new SecretBox(config.chat.encryptionKey),
      gridsUrl: new URL(GRID_PATH_PREFIX.slice(1), withSlash(config.chat.publicUrl)).href,
      logger: botLogger,
    });
    statusMessages = new StatusMessages({
      workspaces: new WorkspaceClients(botTokenFor(config.auth, receiver), app.webClientOptions),
      previewsFor: async (teamId, view) => fetchPreviews(await core.connections.clientFor(teamId), view),
      gridUrlFor: config.isImagesPublic
        ? (teamId, id, images) => grids.urlFor(teamId, id, images)
        : undefined,
      uploadedPreviews: core.store.collection<UploadedPreviews>("uploadedPreviews"),
      logger: botLogger,
    });
    registerListeners(app, {
      core,
      statusMessages,
      locales: new UserLocales(),
      installations,
      logger: botLogger,
    });
    const ownRoutes = { [WEBHOOK_PATH_PREFIX]: core.receiver.listener, [GRID_PATH_PREFIX]: grids.listener };
    if (receiver instanceof HTTPReceiver) {
      const boltListener = receiver.requestListener;
      receiver.requestListener = ownRoutesFirst(ownRoutes, boltListener);
    } else {
      serveOwnRoutesFirst(receiver, ownRoutes);
    }
    const started = await app.start(config.chat.port);
    startedApp = app;
    const port = config.appToken ? config.chat.port : (started.address() as AddressInfo).port;
    await core.start();
    return {
      app,
      core,
      port,
      stop: async () => {
        await app.stop();
        await core.stop();
      },
    };
  } catch (error) {
    await startedApp?.stop().catch(() => {});
    await core.stop();
    throw error;
  }
}

/**
 * The bot's own routes (imagehub's deliveries to chat-core's receiver, the grids) go before Bolt's router,
 * by path prefix: Bolt decodes a custom route's parameters unguarded, and a bad percent-encoding in the path
 * would end in a 500 (or, in Socket Mode's server, an unhandled rejection).
 */
function ownRoutesFirst(
  ownRoutes: Record<string, RequestListener>,
  boltListener: RequestListener,
): RequestListener {
  return (request, response) => {
    const prefix = Object.keys(ownRoutes).find((path) => request.url?.startsWith(path) === true);
    return (prefix === undefined ? boltListener : (ownRoutes[prefix] as RequestListener))(request, response);
  };
}

/** Socket Mode's HTTP server (custom routes, OAuth pages) is private to Bolt: its listener is wrapped. */
function serveOwnRoutesFirst(receiver: SocketModeReceiver, ownRoutes: Record<string, RequestListener>): void {
  const server = (receiver as unknown as { httpServer?: Server }).httpServer;
  if (!server) throw new Error("Socket Mode's receiver has no HTTP server for imagehub's webhooks");
  const [boltListener, ...others] = server.listeners("request") as RequestListener[];
  if (!boltListener || others.length > 0) throw new Error("Socket Mode's HTTP server is not as expected");
  server.removeAllListeners("request");
  server.on("request", ownRoutesFirst(ownRoutes, boltListener));
}

function createReceiver(
  config: SlackConfig,
  options: {
    logger: Logger;
    clientOptions: webApi.WebClientOptions;
    installations: SealedInstallationStore | undefined;
    webhookListener: RequestListener;
  },
): HTTPReceiver | SocketModeReceiver {
  const { logger, clientOptions, installations, webhookListener } = options;
  const customRoutes: CustomRoute[] = [{ path: WEBHOOK_ROUTE, method: ["POST"], handler: webhookListener }];
  const oauth =
    config.auth.kind === "oauth"
      ? {
          clientId: config.auth.clientId,
          clientSecret: config.auth.clientSecret,
          stateSecret: config.auth.stateSecret,
          installationStore: installations,
          scopes: BOT_SCOPES,
          redirectUri: new URL(OAUTH_REDIRECT_PATH.slice(1), withSlash(config.chat.publicUrl)).href,
        }
      : {};
  const installerOptions = { clientOptions, redirectUriPath: OAUTH_REDIRECT_PATH };
  if (config.appToken !== undefined) {
    // Socket Mode: Bolt's receiver serves the custom routes and the OAuth pages on a plain HTTP server.
    return new SocketModeReceiver({
      appToken: config.appToken,
      logger,
      customRoutes,
      ...oauth,
      installerOptions: { ...installerOptions, port: config.chat.port },
    });
  }
  if (config.signingSecret === undefined) throw new Error("SLACK_SIGNING_SECRET is required in HTTP mode");
  return new HTTPReceiver({
    signingSecret: config.signingSecret,
    logger,
    customRoutes,
    ...oauth,
    installerOptions,
  });
}

/** The bot token for work outside Slack's requests: the configured one, or the installation's. */
function botTokenFor(auth: SlackAuth, receiver: Receiver & Pick<HTTPReceiver, "installer">): BotTokenFor {
  if (auth.kind === "single-workspace") return async () => auth.botToken;
  const { installer } = receiver;
  if (!installer) throw new Error("OAuth is configured but the receiver has no installer");
  return async (teamId) => {
    // authorize() refreshes a rotated token, as Bolt does for requests.
    const authorized = await installer
      .authorize({ teamId, enterpriseId: undefined, isEnterpriseInstall: false })
      .catch((error: unknown) => {
        throw new NotInstalledError(`imagehub is not installed in the workspace ${teamId}`, { cause: error });
      });
    if (!authorized.botToken) throw new NotInstalledError(`no bot token for the workspace ${teamId}`);
    return authorized.botToken;
  };
}

function withSlash(url: string): string {
  return url.endsWith("/") ? url : `${url}/`;
}
