/** Polls `condition` until it holds; throws `what` when it still does not after `timeoutMs`. */
export async function until(
  condition: () => boolean | Promise<boolean>,
  { timeoutMs = 60_000, what = "the condition" }: { timeoutMs?: number; what?: string } = {},
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
