/** The outbox events of a generation that completes, in the order they happen. */
export const COMPLETED_LIFECYCLE = [
  "print.created",
  "print.active",
  "print.progress",
  "print.progress",
  "print.progress",
  "print.progress",
  "print.completed",
];
