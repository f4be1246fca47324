/**
 * Whether the process has been told to stop (SIGTERM): from then on /health answers 503, so that load
 * balancers take it out of rotation, and every answer closes its connection, while it still accepts new
 * ones for SHUTDOWN_PRE_STOP_MS.
 */
export class ShutdownState {
  isStopping = false;
}
