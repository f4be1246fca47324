// Open-loop load: requests sent on a schedule, whether or not the earlier ones were answered.

/**
 * Sends `count` requests evenly over `seconds`, each without waiting for the others; answers their outcomes
 * (status 0: no answer, with the reason), each with when it was sent (`at`, ms after the first).
 * @param {number} count
 * @param {number} seconds
 * @param {(index: number) => Promise<Response>} send
 * @returns {Promise<{ status: number, ms: number, at: number, error?: string }[]>}
 */
export async function paced(count, seconds, send) {
  const started = performance.now();
  const sent = [];
  for (let index = 0; index < count; index++) {
    const due = started + (index * seconds * 1000) / count;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    const sentAt = performance.now();
    const at = sentAt - started;
    sent.push(
      send(index).then(
        async (response) => {
          await response.arrayBuffer();
          return { status: response.status, ms: performance.now() - sentAt, at };
        },
        (/** @type {Error} */ error) => ({
          status: 0,
          ms: performance.now() - sentAt,
          at,
          error: String(/** @type {{ cause?: unknown }} */ (error).cause ?? error.message),
        }),
      ),
    );
  }
  return Promise.all(sent);
}
