import { useCallback, useEffect, useRef, useState } from "react";
import { ApiError } from "./api";
import { humanLine } from "./human-messages";

/** Loads what a page shows; `reload` fetches it again (after a change, or on a timer). */
export function useLoad<T>(load: () => Promise<T>, dependencies: unknown[] = []) {
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const reload = useCallback(
    () =>
      load().then(
        (value) => {
          setData(value);
          setError(undefined);
        },
        (failure: unknown) => setError(messageOf(failure)),
      ),
    // biome-ignore lint/correctness/useExhaustiveDependencies: the caller names what the load depends on.
    dependencies,
  );
  useEffect(() => {
    void reload();
  }, [reload]);
  return { data, error, reload };
}

/** Where the reader is in an offset-paginated list: `limit` items from `offset`. */
export interface OffsetPages {
  offset: number;
  limit: number;
  setOffset: (offset: number) => void;
}

/** Loads one page of `limit` items of a list (see Pager), from the first. */
export function useOffsetPages<T>(
  limit: number,
  load: (page: { limit: number; offset: number }) => Promise<T>,
  dependencies: unknown[] = [],
): ReturnType<typeof useLoad<T>> & { pages: OffsetPages } {
  const [offset, setOffset] = useState(0);
  const loaded = useLoad(() => load({ limit, offset }), [...dependencies, offset]);
  return { ...loaded, pages: { offset, limit, setOffset } };
}

/** Runs a change the user asked for, keeping its error to show and whether it is under way. */
export function useAction() {
  const [error, setError] = useState<string | undefined>(undefined);
  const [isBusy, setBusy] = useState(false);
  const run = useCallback(async <T>(action: () => Promise<T>): Promise<T | undefined> => {
    setBusy(true);
    setError(undefined);
    try {
      return await action();
    } catch (failure) {
      setError(messageOf(failure));
      return undefined;
    } finally {
      setBusy(false);
    }
  }, []);
  return { run, error, isBusy, setError };
}

/** What went wrong, in words for the reader (see humanLine). */
export function messageOf(failure: unknown): string {
  if (failure instanceof ApiError) return failure.messages.map(humanLine).join("\n");
  return failure instanceof Error ? failure.message : String(failure);
}

/** Calls `tick` every `intervalMs` while `isActive` and the page is in view (a hidden tab costs nothing). */
export function useInterval(tick: () => unknown, intervalMs: number, isActive: boolean): void {
  const latest = useRef(tick);
  useEffect(() => {
    latest.current = tick;
  });
  useEffect(() => {
    if (!isActive) return;
    const timer = setInterval(() => {
      if (document.visibilityState === "visible") void latest.current();
    }, intervalMs);
    return () => clearInterval(timer);
  }, [intervalMs, isActive]);
}
