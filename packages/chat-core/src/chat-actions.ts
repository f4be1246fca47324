/**
 * Buttons carry their whole state in their id (Discord custom_id, at most 100 characters; Slack action_id),
 * so that they keep working after a bot restart: what to do, and on which image or generation.
 */
export type ChatAction =
  /** `generationId` is absent on buttons made before it was recorded (the requester is then unknown). */
  | { kind: "buy"; imageId: string; imageNumber: number; generationId?: string }
  /** U1–U4: image n in full size with its upscaled renditions, bought as Buy n would. */
  | { kind: "upscale"; imageId: string; imageNumber: number; generationId: string }
  | { kind: "retry"; generationId: string }
  /** The same request again, as a new generation with a new seed. */
  | { kind: "again"; generationId: string }
  /** V1–V4: a new generation that varies one image of the generation (an image prompt, or a new seed). */
  | { kind: "vary"; generationId: string; imageNumber: number }
  /** The 4 previews, to whoever clicked. */
  | { kind: "show"; generationId: string };

const PREFIX = "imagehub";

export function encodeAction(action: ChatAction): string {
  if (action.kind === "buy") {
    const generation = action.generationId === undefined ? "" : `:${action.generationId}`;
    return `${PREFIX}:buy:${action.imageNumber}:${action.imageId}${generation}`;
  }
  if (action.kind === "upscale") {
    return `${PREFIX}:upscale:${action.imageNumber}:${action.imageId}:${action.generationId}`;
  }
  if (action.kind === "vary") return `${PREFIX}:vary:${action.imageNumber}:${action.generationId}`;
  return `${PREFIX}:${action.kind}:${action.generationId}`;
}

/** The action behind a button id, or undefined for ids this bot did not make. */
export function decodeAction(id: string): ChatAction | undefined {
  const [prefix, kind, ...rest] = id.split(":");
  if (prefix !== PREFIX) return undefined;
  if (kind === "buy" && (rest.length === 2 || rest.length === 3)) {
    const [number, imageId, generationId] = rest as [string, string, string | undefined];
    const imageNumber = Number(number);
    if (Number.isInteger(imageNumber) && imageNumber >= 1 && imageId !== "" && generationId !== "") {
      return { kind: "buy", imageId, imageNumber, ...(generationId !== undefined && { generationId }) };
    }
  }
  if (kind === "upscale" && rest.length === 3) {
    const [number, imageId, generationId] = rest as [string, string, string];
    const imageNumber = Number(number);
    if (Number.isInteger(imageNumber) && imageNumber >= 1 && imageId !== "" && generationId !== "") {
      return { kind, imageId, imageNumber, generationId };
    }
  }
  if (kind === "vary" && rest.length === 2) {
    const [number, generationId] = rest as [string, string];
    const imageNumber = Number(number);
    if (Number.isInteger(imageNumber) && imageNumber >= 1 && generationId !== "") {
      return { kind, generationId, imageNumber };
    }
  }
  if ((kind === "retry" || kind === "again" || kind === "show") && rest.length === 1 && rest[0]) {
    return { kind, generationId: rest[0] };
  }
  return undefined;
}
