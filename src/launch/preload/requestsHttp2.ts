import { subscribe } from 'node:diagnostics_channel';

/** What the http2 hooks need of the request recorder (requests.ts). */
export interface RequestLog {
  /** A request starts now: its id. */
  begin(): number;
  /** Runs `f` as request id's code: what it starts runs under the request too. */
  within<T>(id: number, f: () => T): T;
  /** Request id's response finished (or the client aborted it: status 0): its line is written. */
  finish(id: number, method: string, req: { url?: string }, status: number, aborted?: boolean): void;
}

interface StreamLike {
  emit(event: string | symbol, ...args: unknown[]): boolean;
  sentHeaders?: Record<string, unknown>;
  [kStream]?: { id: number; method: string; req: { url?: string } };
}
type Emit = (this: unknown, event: string | symbol, ...args: unknown[]) => boolean;

const kStream = Symbol('nodeFlame.h2stream');

/**
 * Records the requests of Node's http2 servers (`createServer`, `createSecureServer`, stream and compatibility APIs),
 * which publish on no diagnostics channel in Node 20. The server's class is reached from its first connection's
 * socket (`net.server.socket`), so a process that never loads `node:http2` pays nothing (loading it costs ~9 ms),
 * whether it imports it by `require` or `import`. Its `emit` then wraps each stream: the 'stream' listeners (the
 * compatibility API's 'request' among them) and every event of the stream (its body, its end) run as the
 * request's code, each stream its own even when one session multiplexes many.
 */
export function recordHttp2(log: RequestLog): void {
  const patched = new WeakSet<object>();
  subscribe('net.server.socket', (m) => {
    const server = (m as { socket?: { server?: object } }).socket?.server;
    if (!server) return;
    // The class that defines `updateSettings`: Http2Server or Http2SecureServer, not an app's subclass of it.
    let proto = Object.getPrototypeOf(server) as object | null;
    while (proto && !Object.prototype.hasOwnProperty.call(proto, 'updateSettings')) proto = Object.getPrototypeOf(proto) as object | null;
    const name = (proto as { constructor?: { name?: string } } | null)?.constructor?.name;
    if (!proto || patched.has(proto) || (name !== 'Http2Server' && name !== 'Http2SecureServer')) return;
    patched.add(proto);
    const emit = (proto as { emit: Emit }).emit;
    (proto as { emit: Emit }).emit = function (this: unknown, event, ...args) {
      if (event === 'stream') {
        const [stream, headers] = args as [StreamLike, Record<string, unknown> | undefined];
        const id = begin(log, stream, headers ?? {});
        return log.within(id, () => emit.call(this, event, ...args));
      }
      if (event === 'request') {
        // The compatibility API's request: the one a framework names its route on (fastify with `http2: true`).
        const req = args[0] as { stream?: StreamLike; url?: string } | undefined;
        const s = req?.stream?.[kStream];
        if (s && req) s.req = req;
      }
      return emit.call(this, event, ...args);
    };
  });
}

function begin(log: RequestLog, stream: StreamLike, headers: Record<string, unknown>): number {
  const id = log.begin();
  const path = typeof headers[':path'] === 'string' ? headers[':path'] : '';
  const s = { id, method: typeof headers[':method'] === 'string' ? headers[':method'] : '', req: { url: path } };
  stream[kStream] = s;
  const emit = stream.emit.bind(stream) as Emit;
  let open = true;
  stream.emit = (event, ...args) => {
    // 'finish': the response is handed to the session, as http's `response.finish`; 'close' alone: reset or aborted.
    if (open && (event === 'finish' || event === 'close')) {
      open = false;
      if (event === 'finish') log.finish(id, s.method, s.req, Number(stream.sentHeaders?.[':status'] ?? 0));
      else log.finish(id, s.method, s.req, 0, true);
    }
    return log.within(id, () => emit(event, ...args));
  };
  return id;
}
