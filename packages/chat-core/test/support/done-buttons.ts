/** The buttons of a finished generation's status message, on both platforms, in order. */
export const DONE_BUTTONS = [
  "Buy 1",
  "Buy 2",
  "Buy 3",
  "Buy 4",
  "U1",
  "U2",
  "U3",
  "U4",
  "V1",
  "V2",
  "V3",
  "V4",
  "Show all 4",
  "Again",
];
