import type { webApi } from "@slack/bolt";
import { slackErrorCode } from "./slack-errors.js";

/** A workspace admin or owner (users:read): they connect imagehub, change its settings, and may buy. */
export async function isWorkspaceAdmin(slack: webApi.WebClient, userId: string): Promise<boolean> {
  const { user } = await slack.users.info({ user: userId });
  return user?.is_admin === true || user?.is_owner === true;
}

/**
 * Slack's answers for a user group that is no more (deleted since the admins chose it), or for a workspace
 * whose plan has no user groups: nobody is in it.
 */
const NO_SUCH_GROUP = new Set(["no_such_subteam", "plan_upgrade_required"]);

/** Whether someone belongs to a user group (usergroups:read). */
export async function isInUserGroup(
  slack: webApi.WebClient,
  groupId: string,
  userId: string,
): Promise<boolean> {
  try {
    const { users } = await slack.usergroups.users.list({ usergroup: groupId });
    return users?.includes(userId) === true;
  } catch (error) {
    if (NO_SUCH_GROUP.has(slackErrorCode(error) ?? "")) return false;
    throw error;
  }
}

/** The id of the workspace's user group with this @handle (usergroups:read), if there is one. */
export async function userGroupByHandle(
  slack: webApi.WebClient,
  handle: string,
): Promise<string | undefined> {
  try {
    const { usergroups } = await slack.usergroups.list({});
    return usergroups?.find((group) => group.handle?.toLowerCase() === handle)?.id;
  } catch (error) {
    if (NO_SUCH_GROUP.has(slackErrorCode(error) ?? "")) return undefined;
    throw error;
  }
}
