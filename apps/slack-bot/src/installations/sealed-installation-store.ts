import type { SecretBox, StoreCollection } from "@imagehub/chat-core";
import type { Installation, InstallationQuery, InstallationStore } from "@slack/bolt";

/** An installation as kept at rest: who installed where, in clear; the tokens, sealed. */
export interface InstallationRecord {
  teamId: string | undefined;
  enterpriseId: string | undefined;
  isEnterpriseInstall: boolean;
  installedAt: string;
  /** The whole Installation (bot token, refresh token…) as JSON, sealed with the bot's SecretBox. */
  sealedInstallation: string;
}

/**
 * Bolt's installation store over the bot's durable JSON store: one record per workspace (or per
 * Enterprise Grid organisation for org-wide installs), its tokens sealed with AES-256-GCM, so that a copy of
 * the data directory alone gives no access to any workspace. A new installation replaces the previous one.
 */
export class SealedInstallationStore implements InstallationStore {
  constructor(
    private readonly records: StoreCollection<InstallationRecord>,
    private readonly secretBox: SecretBox,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async storeInstallation(installation: Installation): Promise<void> {
    const isEnterpriseInstall = installation.isEnterpriseInstall === true;
    const query = {
      teamId: installation.team?.id,
      enterpriseId: installation.enterprise?.id,
      isEnterpriseInstall,
    };
    await this.records.set(keyOf(query), {
      ...query,
      installedAt: this.now().toISOString(),
      sealedInstallation: this.secretBox.seal(JSON.stringify(installation)),
    });
  }

  async fetchInstallation(query: InstallationQuery<boolean>): Promise<Installation> {
    const record = await this.records.get(keyOf(query));
    if (!record) throw new Error(`imagehub is not installed in ${keyOf(query)}`);
    return JSON.parse(this.secretBox.open(record.sealedInstallation)) as Installation;
  }

  async deleteInstallation(query: InstallationQuery<boolean>): Promise<void> {
    await this.records.delete(keyOf(query));
  }
}

/** Org-wide installs serve every workspace of the organisation; the others, one workspace. */
function keyOf({
  teamId,
  enterpriseId,
  isEnterpriseInstall,
}: {
  teamId: string | undefined;
  enterpriseId: string | undefined;
  isEnterpriseInstall: boolean;
}): string {
  if (isEnterpriseInstall && enterpriseId) return `enterprise:${enterpriseId}`;
  if (!teamId) throw new Error("an installation of a workspace needs its team id");
  return `team:${teamId}`;
}
