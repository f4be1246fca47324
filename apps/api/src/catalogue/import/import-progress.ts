import type { ImportProgress } from "./catalogue-import.service.js";

const BAR_WIDTH = 30;
/** A terminal's bar is redrawn at most this often; a log gets one line per interval. */
const TERMINAL_REDRAW_MS = 100;
const LOG_INTERVAL_MS = 5000;

/** "[#########.....]  45% 45,000 lines 12,345/s 4 s left": the share of the manifest's bytes read so far. */
export function describeProgress(
  progress: ImportProgress,
  elapsedMs: number,
  { withBar = true } = {},
): string {
  const share = progress.totalBytes === 0 ? 1 : Math.min(1, progress.bytesRead / progress.totalBytes);
  const seconds = elapsedMs / 1000;
  const rate = seconds > 0 ? Math.round(progress.lines / seconds) : 0;
  const left = share > 0 ? Math.max(0, Math.round((seconds * (1 - share)) / share)) : undefined;
  const filled = Math.round(share * BAR_WIDTH);
  const bar = withBar ? `[${"#".repeat(filled)}${".".repeat(BAR_WIDTH - filled)}] ` : "";
  return (
    `${bar}${String(Math.floor(share * 100)).padStart(3)}% ${progress.lines.toLocaleString("en")} lines ` +
    `${rate.toLocaleString("en")}/s ${left === undefined ? "?" : formatDuration(left)} left`
  );
}

function formatDuration(seconds: number): string {
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min ${seconds % 60} s`;
  return `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}

/**
 * Progress on stderr: a bar redrawn in place on a terminal, plain lines every few seconds otherwise (a log);
 * notes (skipped lines) are written on lines of their own without breaking the bar.
 */
export class ProgressReporter {
  private readonly started = performance.now();
  private lastDrawn = Number.NEGATIVE_INFINITY;
  private last: ImportProgress | undefined;
  private isLastDrawn = false;

  constructor(private readonly stream: NodeJS.WriteStream) {}

  private get isTerminal(): boolean {
    return this.stream.isTTY === true;
  }

  update(progress: ImportProgress): void {
    this.last = progress;
    this.isLastDrawn = false;
    const now = performance.now();
    if (now - this.lastDrawn < (this.isTerminal ? TERMINAL_REDRAW_MS : LOG_INTERVAL_MS)) return;
    this.lastDrawn = now;
    this.draw();
  }

  note(text: string): void {
    this.stream.write(this.isTerminal ? `\r\x1b[2K${text}\n` : `${text}\n`);
    if (this.isTerminal && this.last) this.draw();
  }

  finish(): void {
    if (!this.isLastDrawn) this.draw();
    if (this.isTerminal) this.stream.write("\n");
  }

  private draw(): void {
    if (!this.last) return;
    this.isLastDrawn = true;
    const text = describeProgress(this.last, performance.now() - this.started, { withBar: this.isTerminal });
    this.stream.write(this.isTerminal ? `\r\x1b[2K${text}` : `${text}\n`);
  }
}
