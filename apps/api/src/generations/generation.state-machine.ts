import type { Generation, GenerationMode, Prisma } from "@imagehub/db";
import {
  findPromptProblems,
  type GenerationEventType,
  type GenerationParam,
  GenerationStatus,
} from "@imagehub/domain";
import { v7 as uuidv7 } from "uuid";
import type { Debit } from "../accounts/credit-ledger.statements.js";
import { Conflict, InvalidRequest } from "../common/domain-errors.js";
import type { GenerationWithImages } from "./generation.view.js";

const { Create, Pending, Processing, Done, Error: Failed } = GenerationStatus;

/**
 * Every way a generation's status may change, and the event each change emits. The repository writes a
 * status only through `transition`, in the transaction that records the event. Beside them, the rules a
 * change follows: what an edit may change, the credits a generation holds, the images that outlive it.
 */
const TRANSITIONS = {
  /** Created and queued. */
  submit: { from: [Create], to: Pending, event: "print.created" },
  /** A worker took it. */
  start: { from: [Pending], to: Processing, event: "print.active" },
  /** One more image is stored. */
  progress: { from: [Processing], to: Processing, event: "print.progress" },
  complete: { from: [Processing], to: Done, event: "print.completed" },
  fail: { from: [Pending, Processing], to: Failed, event: "print.failed" },
  /** Queued again after an Error; receivers hear of it as a new creation. */
  retry: { from: [Failed], to: Pending, event: "print.created" },
} as const satisfies Record<
  string,
  { from: readonly GenerationStatus[]; to: GenerationStatus; event: GenerationEventType }
>;
export type GenerationTransition = keyof typeof TRANSITIONS;

/** Update is refused while a worker may be reading the generation. */
const EDITABLE: readonly GenerationStatus[] = [Create, Done, Failed];

const STATUS_NAMES = Object.fromEntries(
  Object.entries(GenerationStatus).map(([name, value]) => [value, name]),
);

function statusName(status: number): string {
  return STATUS_NAMES[status] ?? `unknown (${status})`;
}

function canTransition(status: number, transition: GenerationTransition): boolean {
  return (TRANSITIONS[transition].from as readonly number[]).includes(status);
}

/** The change a transition makes, or a Conflict naming the status that forbids it. */
export function transition(status: number, name: GenerationTransition) {
  if (!canTransition(status, name)) {
    throw new Conflict(
      name === "retry"
        ? `only a generation in Error can be retried; this one is ${statusName(status)}`
        : `a generation cannot ${name} from ${statusName(status)}`,
    );
  }
  return TRANSITIONS[name];
}

export function assertEditable(status: number): void {
  if (!EDITABLE.includes(status as GenerationStatus)) {
    throw new Conflict(
      `a generation cannot be changed while it is ${statusName(status)}; wait until it is Done or in Error`,
    );
  }
}

/** A changed prompt, or a prompt kept under a changed mode, must suit the mode the generation will have. */
export function assertPromptFits(prompt: string, mode: GenerationMode): void {
  const problems = findPromptProblems(prompt, mode);
  if (problems.length > 0) throw new InvalidRequest(problems.map((problem) => `prompt: ${problem}`));
}

/** What a create is given; the rest of a new generation is the state machine's. */
export type NewGeneration = Pick<
  Generation,
  | "accountId"
  | "apiKeyId"
  | "name"
  | "prompt"
  | "additionalPrompt"
  | "mode"
  | "optimizePrompt"
  | "tags"
  | "processMode"
  | "engine"
> & { params: GenerationParam[]; metaData: Prisma.InputJsonObject };

/**
 * A new generation as it is submitted: Pending, its first attempt queued now with its credit held, and
 * the event that reports it.
 */
export function submitted(fields: NewGeneration, now = new Date()) {
  const { to, event } = transition(Create, "submit");
  const generation: GenerationWithImages = {
    id: uuidv7(),
    ...fields,
    params: fields.params as unknown as Prisma.JsonArray,
    metaData: fields.metaData as Prisma.JsonObject,
    optimizedPrompt: null,
    status: to,
    failureReason: null,
    engineModel: null,
    progress: null,
    creditHeld: true,
    attempt: 1,
    workerToken: null,
    jobRun: 0,
    queuedAt: now,
    createdAt: now,
    updatedAt: now,
    images: [],
  };
  return { generation, event };
}

/** The fields an update may change. */
export type GenerationChanges = Partial<
  Pick<Generation, "name" | "prompt" | "additionalPrompt" | "mode" | "optimizePrompt" | "tags"> & {
    params: GenerationParam[];
    metaData: Prisma.InputJsonObject;
  }
>;

/**
 * What an update writes, unless a worker may be running the generation (409). The prompt is checked
 * against the mode it will have; a switch to advanced mode drops the simple-mode params and optimisation,
 * and a changed description is optimised again on the next run.
 */
export function edited(current: Generation, changes: GenerationChanges) {
  assertEditable(current.status);
  const mode = changes.mode ?? current.mode;
  assertPromptFits(changes.prompt ?? current.prompt, mode);
  const toAdvanced = mode === "advanced" && current.mode === "simple";
  return {
    ...changes,
    ...(toAdvanced && { params: [], optimizePrompt: false }),
    // Params given with the switch are kept.
    ...(changes.params && { params: changes.params }),
    ...((changes.prompt !== undefined || changes.optimizePrompt !== undefined) && { optimizedPrompt: null }),
  };
}

/**
 * The credits a generation holds from the moment it is queued until it ends: one f_images_print, and one
 * of the fast quota for a fast generation. Spent when it is Done, given back when it fails or goes.
 */
export function creditHold(
  generation: Pick<Generation, "id" | "accountId" | "processMode">,
  actor: string,
): Debit {
  return {
    accountId: generation.accountId,
    types:
      generation.processMode === "fast"
        ? (["f_images_print", "f_images_print_fast"] as const)
        : (["f_images_print"] as const),
    amount: 1,
    reason: "generation",
    reference: generation.id,
    actor,
  };
}

/**
 * Of a generation's images as it is retried or deleted, those somebody bought stay, detached, for their
 * buyer; the others go.
 */
export function keptAndRemoved<Image extends { purchases: number }>(images: readonly Image[]) {
  return {
    kept: images.filter((image) => image.purchases > 0),
    removed: images.filter((image) => image.purchases === 0),
  };
}
