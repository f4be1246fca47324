/**
 * Buttons carry their whole state in their id (Discord custom_id, Slack action value), so that they keep
 * working after a bot restart: what to do, and on which image or generation.
 */
export type ChatAction =
  | { kind: "buy"; imageId: string; imageNumber: number }
  | { kind: "retry"; generationId: string };

const PREFIX = "imagehub";

export function encodeAction(action: ChatAction): string {
  return action.kind === "buy"
    ? `${PREFIX}:buy:${action.imageNumber}:${action.imageId}`
    : `${PREFIX}:retry:${action.generationId}`;
}

/** The action behind a button id, or undefined for ids this bot did not make. */
export function decodeAction(id: string): ChatAction | undefined {
  const [prefix, kind, ...rest] = id.split(":");
  if (prefix !== PREFIX) return undefined;
  if (kind === "buy" && rest.length === 2) {
    const imageNumber = Number(rest[0]);
    const imageId = rest[1] as string;
    if (Number.isInteger(imageNumber) && imageNumber >= 1 && imageId !== "") {
      return { kind: "buy", imageId, imageNumber };
    }
  }
  if (kind === "retry" && rest.length === 1 && rest[0]) return { kind: "retry", generationId: rest[0] };
  return undefined;
}
