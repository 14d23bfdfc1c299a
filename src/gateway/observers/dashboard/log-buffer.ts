/** One line of the gateway's own log. */
export interface LogLine {
  /** ISO time. */
  time: string;
  message: string;
}

/**
 * The gateway's recent log lines (what it writes to stderr), kept for the dashboard: the last `size`
 * lines, and a listener per live page.
 */
export class LogBuffer {
  private readonly lines: LogLine[] = [];
  private readonly listeners = new Set<(line: LogLine) => void>();

  constructor(private readonly size = 500) {}

  /** Keeps a line and tells every listener. */
  add(message: string): void {
    const line = { time: new Date().toISOString(), message };
    this.lines.push(line);
    if (this.lines.length > this.size) this.lines.shift();
    for (const listener of this.listeners) listener(line);
  }

  /** The kept lines, oldest first. */
  recent(): LogLine[] {
    return [...this.lines];
  }

  /** Calls `listener` for each new line until the returned function is called. */
  listen(listener: (line: LogLine) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
