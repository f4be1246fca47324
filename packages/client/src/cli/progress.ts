/** A one-line progress bar on a terminal; plain lines when the output is not one (logs, CI). */
export class ProgressBar {
  private lastLine = "";

  constructor(
    private readonly out: NodeJS.WritableStream & { isTTY?: boolean },
    private readonly label: string,
  ) {}

  update(done: number, total: number | undefined, detail = ""): void {
    const width = 24;
    const bar =
      total && total > 0
        ? `[${"#".repeat(Math.round((Math.min(done, total) / total) * width)).padEnd(width, "-")}]`
        : "";
    const line = `${this.label} ${bar} ${detail}`.replace(/\s+/g, " ").trim();
    if (line === this.lastLine) return;
    this.lastLine = line;
    this.out.write(this.out.isTTY ? `\r\x1b[2K${line}` : `${line}\n`);
  }

  finish(): void {
    if (this.out.isTTY && this.lastLine) this.out.write("\n");
  }
}
