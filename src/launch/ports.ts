import { connect } from 'node:net';

const PORT_PATTERNS: RegExp[] = [
  /\b(?:localhost|127\.0\.0\.1|0\.0\.0\.0|\[::1?\]|::):(\d{2,5})\b/i,
  /\bhttps?:\/\/[^\s/:]+:(\d{2,5})\b/i,
  /\bport\b\s*(?:[:=]|is|on)?\s*(\d{2,5})\b/i,
  /\b(?:listening|running|started|ready|serving)\b[^\n]*?\bon\b[^\n]*?:(\d{2,5})\b/i,
];

/** How much of each output line is searched for a port. */
const ANNOUNCEMENT_CHARS = 512;

/** A line that reports a failure with an address in it (`listen EADDRINUSE … :3000`, `connect ECONNREFUSED …:5432`). */
const ERROR_LINE = /\bE[A-Z]{4,}\b|\bin use\b/;
/** What follows such a line in node's report of an error: stack frames, the error's properties (`port: 3000`), braces. */
const ERROR_DETAIL = /^\s+at\s|^\s+[\w$]+: |^\s*[{}]\s*$|^\s*\^?\s*$|^Emitted 'error' event\b|^[\w.]*Error\b/;

/**
 * The first TCP port an app announces in its output (`localhost:3000`, `port 3000`, `http://host:8080/`).
 * Ports named by an error and its details are not announcements: a port another process holds
 * would otherwise look open, and the load would run against that process.
 */
export function findPortInText(text: string): number | undefined {
  let inError = false;
  for (const whole of text.split(/\r?\n/)) {
    // An announcement is short; the patterns backtrack over long runs of spaces, and the app writes the text.
    const line = whole.slice(0, ANNOUNCEMENT_CHARS);
    if (ERROR_LINE.test(line)) {
      inError = true;
      continue;
    }
    if (inError && ERROR_DETAIL.test(line)) continue;
    inError = false;
    for (const re of PORT_PATTERNS) {
      const m = re.exec(line);
      if (m) {
        const port = Number(m[1]);
        if (port > 0 && port < 65536) return port;
      }
    }
  }
  return undefined;
}

function tryConnect(port: number, host: string): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect({ port, host });
    const done = (ok: boolean) => {
      s.destroy();
      resolve(ok);
    };
    s.setTimeout(1000, () => done(false));
    s.once('connect', () => done(true));
    s.once('error', () => done(false));
  });
}

/** True once something accepts connections on the port (IPv4 or IPv6 loopback). */
export async function isPortOpen(port: number): Promise<boolean> {
  return (await tryConnect(port, '127.0.0.1')) || (await tryConnect(port, '::1'));
}

/**
 * Polls until the port accepts connections. Resolves false on timeout or abort; `port` may be a
 * function so a port seen later in the app's output is picked up.
 */
export async function waitForPort(
  port: number | (() => number | undefined),
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<number | undefined> {
  const deadline = Date.now() + timeoutMs;
  while (!signal?.aborted && Date.now() < deadline) {
    const p = typeof port === 'function' ? port() : port;
    if (p !== undefined && (await isPortOpen(p))) return p;
    await new Promise((r) => setTimeout(r, 100));
  }
  return undefined;
}
