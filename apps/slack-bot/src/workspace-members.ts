import type { webApi } from "@slack/bolt";

/** A workspace admin or owner (users:read): they connect imagehub, change its settings, and may buy. */
export async function isWorkspaceAdmin(slack: webApi.WebClient, userId: string): Promise<boolean> {
  const { user } = await slack.users.info({ user: userId });
  return user?.is_admin === true || user?.is_owner === true;
}

/** Whether someone belongs to a user group (usergroups:read). */
export async function isInUserGroup(
  slack: webApi.WebClient,
  groupId: string,
  userId: string,
): Promise<boolean> {
  const { users } = await slack.usergroups.users.list({ usergroup: groupId });
  return users?.includes(userId) === true;
}
