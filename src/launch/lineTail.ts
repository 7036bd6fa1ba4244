/** Splits a byte stream into lines, keeping the last `keep` for error messages. */
export class LineTail {
  private partial = '';
  readonly lines: string[] = [];

  constructor(private readonly keep = 20) {}

  /** Feeds text; returns the complete lines it finished. */
  push(text: string): string[] {
    const parts = (this.partial + text).split(/\r?\n/);
    this.partial = parts.pop() ?? '';
    for (const l of parts) this.remember(l);
    return parts;
  }

  /** The unfinished last line, if any (at end of stream). */
  flush(): string[] {
    if (!this.partial) return [];
    const l = this.partial;
    this.partial = '';
    this.remember(l);
    return [l];
  }

  private remember(line: string): void {
    // eslint-disable-next-line no-control-regex
    const plain = line.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '');
    if (!plain.trim()) return;
    this.lines.push(plain);
    if (this.lines.length > this.keep) this.lines.shift();
  }
}

/** autocannon's "1k requests in 10.05s, 2.3 MB read" (also "100 requests in 5s"). */
export function parseRequestCount(lines: string[]): number | undefined {
  for (let i = lines.length - 1; i >= 0; i--) {
    // autocannon's summary line is short; on a long run of digits the pattern would backtrack for seconds.
    const m = /([\d.]+)(k|m)?\s+requests in\s+[\d.]+\s*s/i.exec(lines[i].slice(0, 512));
    if (m) return Math.round(Number(m[1]) * (m[2]?.toLowerCase() === 'k' ? 1e3 : m[2] ? 1e6 : 1));
  }
  return undefined;
}
