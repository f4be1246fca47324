import type { ImagehubClient } from "@imagehub/client";
import {
  againRequest,
  type CreateImageGenerationRequest,
  type ImageGeneration,
  varyRequest,
} from "@imagehub/domain";
import { ChatRefusal, describeFailure, NotThisTeamError } from "./chat-errors.js";
import {
  type ChatPlatform,
  type ChatTarget,
  chatMetaData,
  chatTargetOf,
  signTarget,
  teamTag,
} from "./chat-target.js";
import { type GenerateOptions, toCreateRequest } from "./generate-request.js";
import { type GenerationView, queuedView } from "./generation-view.js";
import { DEFAULT_LOCALE, type Locale } from "./i18n/locale.js";
import type { SecretBox } from "./secret-box.js";
import type { StatusUpdates } from "./status-updates.js";
import type { TeamConnections } from "./team-connections.js";
import type { TeamSettingsStore } from "./team-settings.js";
import { type PersonUsage, runningGenerationIds, type TeamUsage } from "./team-usage.js";

/** Where and for whom a generation starts, and how its status message is posted there. */
export interface StartPlace {
  teamId: string;
  channelId: string;
  userId: string;
  /**
   * The requester's language (English unless said): the status message and every update of it are worded
   * in it, and refusals told to them.
   */
  locale?: Locale;
  /**
   * Posts the status message where everyone sees it and answers where it went: its channel (the place's,
   * or another the platform chose, such as a direct message with the bot) and its id (a Discord id, a Slack ts).
   */
  postStatus: (view: GenerationView) => Promise<{ channelId: string; messageId: string }>;
  /** Takes the status message back when imagehub refused the generation. */
  withdrawStatus: (messageId: string) => Promise<void>;
}

export interface StartInput extends StartPlace {
  options: GenerateOptions;
}

export type StartOutcome =
  | { kind: "started"; generation: ImageGeneration; target: ChatTarget }
  /** Told only to the person who acted; nothing was created. */
  | { kind: "refused"; problems: string[] };

export type RetryOutcome =
  | { kind: "retried"; generation: ImageGeneration }
  | { kind: "refused"; problems: string[] };

export interface ChatGenerationsOptions {
  platform: ChatPlatform;
  connections: TeamConnections;
  usage: TeamUsage;
  /** The team's daily quota of generations per person, set by its admins. */
  settings: TeamSettingsStore;
  secretBox: SecretBox;
  updates: StatusUpdates;
}

/**
 * Starting generations from chat, the way both bots share: `/generate`, `Again` and `Retry` all take a place
 * of the team's running limit (and the person's cooldown) first, atomically; then the status message is
 * posted and the generation created pointing at it, so that webhook events find it. When imagehub refuses,
 * the status message is withdrawn and the place given back.
 */
export class ChatGenerations {
  private readonly platform: ChatPlatform;
  private readonly connections: TeamConnections;
  private readonly usage: TeamUsage;
  private readonly settings: TeamSettingsStore;
  private readonly secretBox: SecretBox;
  private readonly updates: StatusUpdates;

  constructor(options: ChatGenerationsOptions) {
    ({
      platform: this.platform,
      connections: this.connections,
      usage: this.usage,
      settings: this.settings,
      secretBox: this.secretBox,
      updates: this.updates,
    } = options);
  }

  /** What a person has used of the team's limits (`/imagehub usage`). */
  async usageOf(teamId: string, userId: string): Promise<PersonUsage> {
    const { dailyGenerationsPerPerson } = await this.settings.get(teamId);
    return this.usage.personUsage(teamId, userId, dailyGenerationsPerPerson);
  }

  /** `/generate` with its options, checked by the API's own rules first. */
  async start({ options, ...place }: StartInput): Promise<StartOutcome> {
    const checked = toCreateRequest(options);
    if (!checked.ok) return { kind: "refused", problems: checked.problems };
    return this.create(place, async () => checked.request);
  }

  /** `Again`: the request of a generation of the team once more, with a new seed, in a new status message. */
  again(place: StartPlace, generationId: string): Promise<StartOutcome> {
    return this.create(place, async (client) =>
      againRequest(await this.ofTeam(client, place.teamId, generationId)),
    );
  }

  /** `V n`: a new generation varying image n of a generation of the team, in a new status message. */
  vary(place: StartPlace, generationId: string, imageNumber: number): Promise<StartOutcome> {
    return this.create(place, async (client) => {
      const generation = await this.ofTeam(client, place.teamId, generationId);
      const image = generation.images[imageNumber - 1];
      if (!image) throw new ChatRefusal((messages) => messages.failures.noSuchImage(imageNumber));
      return varyRequest(generation, image.url);
    });
  }

  /**
   * A generation started from this team's chat (Show all reads it): a generation of the same imagehub
   * account started by another team, or outside chat, is refused.
   */
  async read(teamId: string, generationId: string): Promise<ImageGeneration> {
    return this.ofTeam(await this.connections.clientFor(teamId), teamId, generationId);
  }

  private async ofTeam(
    client: ImagehubClient,
    teamId: string,
    generationId: string,
  ): Promise<ImageGeneration> {
    const generation = await client.generations.get(generationId);
    if (chatTargetOf(generation, this.secretBox)?.teamId !== teamId) throw new NotThisTeamError();
    return generation;
  }

  /** `Retry`: runs a failed generation again; its status message follows it from Pending. */
  async retry(
    who: { teamId: string; userId: string; locale?: Locale },
    generationId: string,
  ): Promise<RetryOutcome> {
    const { teamId } = who;
    return this.reserved(who, async (client, reservationId) => {
      const target = chatTargetOf(await client.generations.get(generationId), this.secretBox);
      if (target?.teamId !== teamId) throw new NotThisTeamError();
      // Before the request: the new attempt's first events may arrive before its answer does.
      await this.updates.restart(target, generationId);
      const generation = await client.generations.retry(generationId);
      await this.usage.confirm(teamId, reservationId, generation.id);
      return { kind: "retried", generation };
    });
  }

  private create(
    { teamId, userId, locale = DEFAULT_LOCALE, postStatus, withdrawStatus }: StartPlace,
    requestOf: (client: ImagehubClient) => Promise<CreateImageGenerationRequest>,
  ): Promise<StartOutcome> {
    let messageId: string | undefined;
    return this.reserved(
      { teamId, userId, locale },
      async (client, reservationId) => {
        const request = await requestOf(client);
        const posted = await postStatus(queuedView(request, locale));
        messageId = posted.messageId;
        const target = signTarget(
          { platform: this.platform, teamId, ...posted, userId, postedAt: Date.now(), locale },
          this.secretBox,
        );
        const generation = await client.generations.create({
          ...request,
          tags: [teamTag(this.platform, teamId)],
          metaData: chatMetaData(target),
        });
        await this.usage.confirm(teamId, reservationId, generation.id);
        await this.updates.track(target, generation);
        return { kind: "started", generation, target };
      },
      async () => {
        if (messageId !== undefined) await withdrawStatus(messageId);
      },
    );
  }

  /**
   * Runs `work` on a place of the team's running limit, taken first; gives the place back when the work
   * fails, telling imagehub's refusals to the person in their language (anything else is the bot's fault,
   * and thrown).
   */
  private async reserved<T>(
    { teamId, userId, locale }: { teamId: string; userId: string; locale?: Locale | undefined },
    work: (client: ImagehubClient, reservationId: string) => Promise<T>,
    undo: () => Promise<void> = async () => {},
  ): Promise<T | { kind: "refused"; problems: string[] }> {
    let reservationId: string | undefined;
    try {
      const client = await this.connections.clientFor(teamId);
      const { dailyGenerationsPerPerson: dailyQuota } = await this.settings.get(teamId);
      const reservation = await this.usage.reserve({ teamId, userId, dailyQuota, locale }, () =>
        runningGenerationIds(client, teamTag(this.platform, teamId)),
      );
      if (reservation.kind === "refused") return { kind: "refused", problems: [reservation.reason] };
      reservationId = reservation.reservationId;
      return await work(client, reservationId);
    } catch (error) {
      if (reservationId !== undefined) await this.usage.cancel(teamId, reservationId);
      const problem = describeFailure(error, locale);
      if (problem === undefined) throw error;
      await undo();
      return { kind: "refused", problems: [problem] };
    }
  }
}
