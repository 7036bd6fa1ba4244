import { createHook, executionAsyncResource } from 'node:async_hooks';
import { subscribe } from 'node:diagnostics_channel';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { isMainThread } from 'node:worker_threads';
import { writeBeforeSignalDeath } from './signals';
import { RUN_DIR_ENV } from '../run/processRecords';
import { appendWhileLive } from '../run/runLiveness';
import { wallClockEdge } from '../run/wallClock';
import { collapseIds } from '../../core/model/requestRoutes';
import { recordHttp2, type RequestLog } from './requestsHttp2';
import { threadCpuClock } from './threadCpu';

/** Set to `0` (the `trackRequests` setting, `--no-requests`): the preload records no HTTP request. */
export const REQUESTS_ENV = 'NODE_FLAME_REQUESTS';

/**
 * `requests-<pid>.jsonl`: a header `{"clock":{"epochMs","monoMs","nowMs"}}` (one instant on the wall clock, the
 * monotonic clock and `performance.now()`), then lines of
 * - `["q", id, method, route, status, startNow, endNow]`: a request served, its times on `performance.now()`;
 *   `["q", id, method, route, 0, startNow, closeNow, 1]`: one the client aborted (its connection closed before the
 *   response ended), closed then, so that what its code left running is no request's any more;
 * - `["s", t, id, t, id, …]`: from time t on, request id's code runs (0: none's);
 * - `["c", t, ms, t, ms, …]`: at time t the main thread had run `ms` on a CPU in all (Linux), from the first request
 *   on, every CPU_EVERY_MS: a loaded machine deschedules the thread, and wall-clock samples count that wait too.
 */
export function requestsFileName(pid: number): string {
  return `requests-${pid}.jsonl`;
}

/** A gap shorter than this between two callbacks of one request is not logged: no sample can fall in it but a rare one. */
const GAP_MS = 0.02;
const CHUNK = 8192;
const CPU_EVERY_MS = 200;

const kRoute = Symbol('nodeFlame.route');

/**
 * Runs inside each profiled process (from the preload): records each HTTP request the process serves (Node's
 * `http`, `https` and `http2` servers, which Express, fastify, Koa and Nest sit on) and when its code runs. A request's
 * id is its async context: what it starts (timers, promises, I/O) runs under it, so its async continuations count
 * too. One async hook both carries the id to what a request's code creates (as AsyncLocalStorage would, whose own
 * hook and lookups cost a third more) and logs only the changes of context (time, id), so a sample of the run is
 * labelled by the last change before it. Appended to the run folder about once a second and at exit.
 */
export function recordRequests(): void {
  const runDir = process.env[RUN_DIR_ENV];
  if (!runDir || !isMainThread || process.env[REQUESTS_ENV] === '0') return;
  const file = join(runDir, requestsFileName(process.pid));
  const epochMs = wallClockEdge();
  const nowMs = performance.now();
  const clock = { epochMs, monoMs: Number(process.hrtime.bigint()) / 1e6 - (performance.now() - nowMs), nowMs };
  let lines = `${JSON.stringify({ clock })}\n`;
  let times = new Float64Array(CHUNK);
  let ids = new Int32Array(CHUNK);
  let n = 0;
  let current = 0;
  let seq = 0;
  /** The requests not finished yet: a connection's next request is parsed under its last one's context. */
  const open = new Map<number, number>();

  const mark = (id: number) => {
    if (id === current) return;
    const t = performance.now();
    current = id;
    // Back to the request that just left it: the short gap is dropped, one change instead of two.
    if (n >= 2 && id !== 0 && ids[n - 1] === 0 && ids[n - 2] === id && t - times[n - 1] < GAP_MS) {
      n--;
      return;
    }
    if (n === times.length) spill();
    times[n] = t;
    ids[n++] = id;
  };
  const spill = () => {
    if (!n) return;
    let s = '["s"';
    for (let i = 0; i < n; i++) s += `,${Math.round(times[i] * 1000) / 1000},${ids[i]}`;
    lines += `${s}]\n`;
    // The last change stays as the next chunk's first: a chunk is whole by itself.
    times[0] = times[n - 1];
    ids[0] = ids[n - 1];
    n = 1;
  };
  /** The request whose code the callback about to run is (the one its resource was created under), if still open. */
  const context = () => {
    // No request open (an idle server): no lookup of the resource.
    if (!open.size) return 0;
    const id = (executionAsyncResource() as Record<symbol, number | undefined>)[kContext];
    return id !== undefined && open.has(id) ? id : 0;
  };
  // Enabled at the first request: a process that serves none (a build, a test runner) pays nothing, its promises
  // included (an async hook turns V8's promise hooks on). `current` is the running code's request: what it creates
  // is that request's.
  const hook = createHook({
    init: (_id, _type, _trigger, resource) => {
      if (current !== 0) (resource as Record<symbol, number>)[kContext] = current;
    },
    before: () => mark(context()),
    after: () => mark(0),
  });
  let hooked = false;

  const log: RequestLog = {
    begin: () => {
      if (!hooked) {
        hook.enable();
        if (cpuClock) setInterval(readCpu, CPU_EVERY_MS).unref();
        readCpu();
      }
      hooked = true;
      const id = ++seq;
      open.set(id, performance.now());
      return id;
    },
    within: (id, f) => {
      // A finished request's last events (its 'finish' listeners) are no request's code.
      if (!open.has(id)) return f();
      const was = current;
      mark(id);
      try {
        return f();
      } finally {
        mark(open.has(was) ? was : 0);
      }
    },
    finish: (id, method, req, status, aborted) => {
      const start = open.get(id);
      if (start === undefined) return;
      open.delete(id);
      const end = performance.now();
      lines += `["q",${id},${quoted(method)},${quoted(routeOf(req))},${status},${round(start)},${round(end)}${aborted ? ',1' : ''}]\n`;
      if (current === id) mark(0);
    },
  };

  subscribe('http.server.request.start', (m) => {
    const { request, response } = m as { request: RequestLike; response?: { once(e: 'close', f: () => void): void } };
    const id = log.begin();
    request[kRequestId] = id;
    // 'close' comes after 'finish' for a response that ended; before it, or alone, when the client went away.
    response?.once('close', () => log.finish(id, request.method ?? '', request, 0, true));
    // For the rest of this callback and what it starts; the connection's resource keeps it, so the body's reads count too.
    (executionAsyncResource() as Record<symbol, number>)[kContext] = id;
    mark(id);
  });
  subscribe('http.server.response.finish', (m) => {
    const { request, response } = m as { request: RequestLike; response: { statusCode: number } };
    const id = request[kRequestId];
    if (id !== undefined) log.finish(id, request.method ?? '', request, response.statusCode);
  });
  recordHttp2(log);
  // fastify names its route pattern in its handler's trace.
  subscribe('tracing:fastify.request.handler:start', (m) => {
    const s = m as { request?: { raw?: RequestLike }; route?: { url?: unknown } };
    if (s.request?.raw && typeof s.route?.url === 'string') {
      s.request.raw[kRoute] = s.route.url;
      namedRoutes = true;
    }
  });

  const cpuClock = threadCpuClock();
  let cpu = '';
  const readCpu = () => {
    const ms = cpuClock?.();
    if (ms !== undefined) cpu += `,${round(performance.now())},${round(ms)}`;
  };
  const flush = () => {
    spill();
    if (cpu) {
      lines += `["c"${cpu}]\n`;
      cpu = '';
    }
    if (!lines) return;
    if (!appendWhileLive(runDir, file, lines)) clearInterval(timer);
    lines = '';
    if (times.length > CHUNK) {
      times = new Float64Array(CHUNK);
      ids = new Int32Array(CHUNK);
    }
  };
  const timer = setInterval(flush, 1000);
  timer.unref();
  const end = () => {
    clearInterval(timer);
    mark(0);
    if (hooked) readCpu();
    flush();
  };
  process.on('exit', end);
  writeBeforeSignalDeath(end);
}

const kRequestId = Symbol('nodeFlame.requestId');
/** On an async resource: the request it was created under. */
const kContext = Symbol('nodeFlame.request');
/** A framework has named a route on a request: before that, none is looked for (a miss on Express's request is slow). */
let namedRoutes = false;
/** Method and route strings, JSON-quoted once each. */
const quotes = new Map<string, string>();

function quoted(s: string): string {
  let q = quotes.get(s);
  if (q === undefined) {
    q = JSON.stringify(s);
    if (quotes.size < 10000) quotes.set(s, q);
  }
  return q;
}

interface RequestLike {
  method?: string;
  url?: string;
  baseUrl?: string;
  route?: { path?: unknown };
  [kRoute]?: string;
  [kRequestId]?: number;
}

function round(t: number): number {
  return Math.round(t * 1000) / 1000;
}

/** The framework's route pattern (Express's `req.route`, fastify's), else the path with its ids collapsed. */
function routeOf(req: RequestLike): string {
  if (namedRoutes && typeof req[kRoute] === 'string') return req[kRoute];
  const path = req.route?.path;
  if (typeof path === 'string') return `${typeof req.baseUrl === 'string' ? req.baseUrl : ''}${path}` || '/';
  return collapseIds((req.url ?? '').split('?')[0]);
}
