import type { GenerationMode } from "@imagehub/db";
import { findPromptProblems, type GenerationEventType, GenerationStatus } from "@imagehub/domain";
import { Conflict, InvalidRequest } from "../common/domain-errors.js";

const { Create, Pending, Processing, Done, Error: Failed } = GenerationStatus;

/**
 * Every way a generation's status may change, and the event each change emits. The repository writes a
 * status only through `transition`, in the transaction that records the event.
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
