/** Whether `a` ranks below `b`: a lower score, or the same score and an older document. */
function ranksBelow(scoreA: number, documentA: number, scoreB: number, documentB: number): boolean {
  return scoreA < scoreB || (scoreA === scoreB && documentA < documentB);
}

/** The best `capacity` (score, document) pairs seen, as a binary heap whose root is the lowest. */
export class TopDocuments {
  private readonly scores: Float64Array;
  private readonly documents: Int32Array;
  private size = 0;

  constructor(private readonly capacity: number) {
    this.scores = new Float64Array(capacity);
    this.documents = new Int32Array(capacity);
  }

  offer(score: number, document: number): void {
    if (this.capacity === 0) return;
    if (this.size < this.capacity) {
      let at = this.size++;
      while (at > 0) {
        const parent = (at - 1) >> 1;
        if (!ranksBelow(score, document, this.scores[parent] as number, this.documents[parent] as number))
          break;
        this.scores[at] = this.scores[parent] as number;
        this.documents[at] = this.documents[parent] as number;
        at = parent;
      }
      this.scores[at] = score;
      this.documents[at] = document;
      return;
    }
    if (ranksBelow(score, document, this.scores[0] as number, this.documents[0] as number)) return;
    let at = 0;
    for (;;) {
      const left = 2 * at + 1;
      if (left >= this.size) break;
      const right = left + 1;
      const lower =
        right < this.size &&
        ranksBelow(
          this.scores[right] as number,
          this.documents[right] as number,
          this.scores[left] as number,
          this.documents[left] as number,
        )
          ? right
          : left;
      if (!ranksBelow(this.scores[lower] as number, this.documents[lower] as number, score, document)) break;
      this.scores[at] = this.scores[lower] as number;
      this.documents[at] = this.documents[lower] as number;
      at = lower;
    }
    this.scores[at] = score;
    this.documents[at] = document;
  }

  /** Whether an offer of this pair would be kept: always while not full. */
  admits(score: number, document: number): boolean {
    return (
      this.size < this.capacity ||
      (this.capacity > 0 &&
        !ranksBelow(score, document, this.scores[0] as number, this.documents[0] as number))
    );
  }

  isFull(): boolean {
    return this.size === this.capacity;
  }

  /** The lowest score kept (0 while none is). */
  lowestScore(): number {
    return this.size > 0 ? (this.scores[0] as number) : 0;
  }

  /** Best first. */
  ranked(): number[] {
    const order = Array.from({ length: this.size }, (_, index) => index);
    order.sort((a, b) =>
      ranksBelow(
        this.scores[a] as number,
        this.documents[a] as number,
        this.scores[b] as number,
        this.documents[b] as number,
      )
        ? 1
        : -1,
    );
    return order.map((index) => this.documents[index] as number);
  }
}
