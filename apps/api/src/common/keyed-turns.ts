/**
 * Runs work one at a time per key, in the order it was asked for, within this process. Work that would
 * only wait for a lock the same key's previous work holds waits here instead, holding nothing meanwhile
 * (a pooled database connection, above all).
 */
export class KeyedTurns {
  /** Per key, the end of its last turn asked for; a turn's failure does not stop the next. */
  private readonly lastTurnEnd = new Map<string, Promise<void>>();

  run<T>(key: string, work: () => Promise<T>): Promise<T> {
    const result = (this.lastTurnEnd.get(key) ?? Promise.resolve()).then(work);
    const end = result.then(
      () => undefined,
      () => undefined,
    );
    this.lastTurnEnd.set(key, end);
    void end.then(() => {
      if (this.lastTurnEnd.get(key) === end) this.lastTurnEnd.delete(key);
    });
    return result;
  }
}
