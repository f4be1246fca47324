import type { ImageGeneration } from "@imagehub/domain";
import { describeFailure } from "./chat-errors.js";
import { type ChatPlatform, type ChatTarget, chatMetaData, signTarget, teamTag } from "./chat-target.js";
import { type GenerateOptions, toCreateRequest } from "./generate-request.js";
import { type GenerationView, queuedView } from "./generation-view.js";
import type { SecretBox } from "./secret-box.js";
import type { StatusUpdates } from "./status-updates.js";
import type { TeamConnections } from "./team-connections.js";
import type { UsageLimits } from "./usage-limits.js";

export interface StartInput {
  teamId: string;
  channelId: string;
  userId: string;
  options: GenerateOptions;
  /** Posts the status message where everyone sees it and answers its id (a Discord id, a Slack ts). */
  postStatus: (view: GenerationView) => Promise<string>;
  /** Takes the status message back when imagehub refused the generation. */
  withdrawStatus: (messageId: string) => Promise<void>;
}

export type StartOutcome =
  | { kind: "started"; generation: ImageGeneration; target: ChatTarget }
  /** Told only to the person who ran the command; nothing was created. */
  | { kind: "refused"; problems: string[] };

/**
 * The `/generate` flow both bots share: check the options (the API's own rules), the team's connection
 * and its limits; post the status message; then create the generation pointing at that message, so that
 * webhook events find it. When imagehub refuses, the status message is withdrawn.
 */
export interface ChatGenerationsOptions {
  platform: ChatPlatform;
  connections: TeamConnections;
  limits: UsageLimits;
  secretBox: SecretBox;
  updates: StatusUpdates;
}

export class ChatGenerations {
  private readonly platform: ChatPlatform;
  private readonly connections: TeamConnections;
  private readonly limits: UsageLimits;
  private readonly secretBox: SecretBox;
  private readonly updates: StatusUpdates;

  constructor(options: ChatGenerationsOptions) {
    ({
      platform: this.platform,
      connections: this.connections,
      limits: this.limits,
      secretBox: this.secretBox,
      updates: this.updates,
    } = options);
  }

  async start({
    teamId,
    channelId,
    userId,
    options,
    postStatus,
    withdrawStatus,
  }: StartInput): Promise<StartOutcome> {
    const checked = toCreateRequest(options);
    if (!checked.ok) return { kind: "refused", problems: checked.problems };
    const tag = teamTag(this.platform, teamId);
    let messageId: string | undefined;
    try {
      const client = await this.connections.clientFor(teamId);
      const refusal = await this.limits.refusal({ teamId, userId, tag }, client);
      if (refusal) return { kind: "refused", problems: [refusal] };
      messageId = await postStatus(queuedView(checked.request));
      const target = signTarget(
        { platform: this.platform, teamId, channelId, messageId, userId },
        this.secretBox,
      );
      const generation = await client.generations.create({
        ...checked.request,
        tags: [tag],
        metaData: chatMetaData(target),
      });
      this.limits.noteStarted({ teamId, userId });
      await this.updates.track(target, generation);
      return { kind: "started", generation, target };
    } catch (error) {
      const problem = describeFailure(error);
      if (problem === undefined) throw error;
      if (messageId !== undefined) await withdrawStatus(messageId);
      return { kind: "refused", problems: [problem] };
    }
  }

  /** Runs a failed generation again; its status message follows it from Pending. */
  async retry(teamId: string, generationId: string): Promise<ImageGeneration> {
    return (await this.connections.clientFor(teamId)).generations.retry(generationId);
  }
}
