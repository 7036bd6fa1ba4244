import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromeTraceImporter, readChromeTrace, TraceSink, traceToModel } from '../../src/core/importers/chromeTrace';
import { sniffFormat } from '../../src/core/importers';
import { ProfileError, type Profile } from '../../src/core/model';
import { tempFiles } from '../helpers/tempFiles';

const file = tempFiles('nf-trace-', '.json');
const dir = mkdtempSync(join(tmpdir(), 'nf-trace-rec-'));
test.after(() => rmSync(dir, { recursive: true, force: true }));

/**
 * Node's own trace of a script under V8's CPU profiler category: the real file, with Profile and ProfileChunk events.
 * Node 20 starts V8's tracing profiler only when tracing is (re)configured after startup (a Worker, or
 * `trace_events` enabled at run time): with the command-line flags alone its trace holds no profile.
 */
function nodeTrace(name: string, body: string): { path: string; events: Record<string, unknown>[] } {
  const out = join(dir, name);
  rmSync(out, { recursive: true, force: true });
  spawnSync('mkdir', ['-p', out]);
  const script = join(out, `${name}.js`);
  writeFileSync(script, body);
  const run = spawnSync(
    process.execPath,
    [
      '--trace-event-categories',
      'disabled-by-default-v8.cpu_profiler',
      '--trace-event-file-pattern',
      join(out, 'trace-${pid}.json'),
      script,
    ],
    { encoding: 'utf8', timeout: 60_000 },
  );
  assert.equal(run.status, 0, run.stderr);
  const path = join(out, readdirSync(out).find((f) => f.startsWith('trace-'))!);
  return { path, events: (JSON.parse(readFileSync(path, 'utf8')) as { traceEvents: Record<string, unknown>[] }).traceEvents };
}

const FIB = (fn: string, ms: number) =>
  `require('trace_events').createTracing({ categories: ['disabled-by-default-v8.cpu_profiler'] }).enable();
   function ${fn}(n) { return n < 2 ? n : ${fn}(n - 1) + ${fn}(n - 2); }
   const t = Date.now(); let s = 0; while (Date.now() - t < ${ms}) s += ${fn}(22);
   console.log(s > 0 ? 'ok' : 'no');`;

/** Self samples by function name (over every thread). */
function selfByName(p: Profile): Map<string, number> {
  const m = new Map<string, number>();
  for (let n = 1; n < p.tree.count; n++) {
    const name = p.frames[p.tree.frame[n]].name;
    if (p.tree.self[n]) m.set(name, (m.get(name) ?? 0) + p.tree.self[n]);
  }
  return m;
}

/** The samples a trace's chunks hold, counted from JSON.parse: the oracle of what the reader must find. */
function chunkSamples(events: Record<string, unknown>[]): number {
  let n = 0;
  for (const e of events) {
    const data = (e.args as { data?: { cpuProfile?: { samples?: number[] } } } | undefined)?.data;
    if (e.name === 'ProfileChunk') n += data?.cpuProfile?.samples?.length ?? 0;
  }
  return n;
}

test("Node's own trace (ProfileChunk events) reads as the process's CPU profile, in either form and any chunk size", async () => {
  const { path, events } = nodeTrace('one', FIB('fibTrace', 400));
  assert.ok(
    events.some((e) => e.name === 'Profile') && events.some((e) => e.name === 'ProfileChunk'),
    'Node 20 writes Profile + ProfileChunk',
  );
  assert.equal((await sniffFormat(path)).format, 'chrome-trace');
  const p = await chromeTraceImporter.load(path, {});
  assert.equal(p.format, 'chrome-trace');
  const samples = chunkSamples(events);
  assert.ok(samples > 100, `${samples} samples`);
  assert.equal(p.tree.weight, samples);
  assert.equal(p.timeline?.times.length, samples);
  const self = selfByName(p);
  const top = [...self].sort((a, b) => b[1] - a[1])[0];
  assert.equal(top[0], 'fibTrace', `hottest: ${top[0]}`);
  assert.ok((p.meta.durationMs ?? 0) > 300, `duration ${p.meta.durationMs}`);
  assert.equal(p.threads.length, 1);
  assert.match(p.threads[0].name, /^pid \d+/);

  // The array form (what tracing tools write, one event a line) and tiny chunks give the same profile.
  const asArray = file(`[\n${events.map((e) => JSON.stringify(e)).join(',\n')}\n]\n`);
  assert.equal((await sniffFormat(asArray)).format, 'chrome-trace');
  const q = await chromeTraceImporter.load(asArray, {});
  assert.deepEqual(q.tree, p.tree);
  assert.deepEqual(q.timeline, p.timeline);
  // A browser's trace is mostly other events: stepped over unparsed, brackets and quotes in their strings and all.
  const noise = (k: number) =>
    JSON.stringify({ ph: 'X', name: 'FunctionCall', ts: k, pid: 1, args: { data: { url: 'a"]},{"b', n: [k, { m: '}' }] } } });
  const busy = file(`[${events.flatMap((e, k) => [noise(k), JSON.stringify(e), noise(-k)]).join(',\n')}]`);
  const b = await chromeTraceImporter.load(busy, {});
  assert.deepEqual(b.tree, p.tree);
  assert.deepEqual(b.timeline, p.timeline);
  // DevTools' own layout: its metadata first (long enough to push the events past the head that is sniffed).
  const devtools = file(
    `{"metadata":{"source":"DevTools","startTime":"2026-11-26T09:00:00Z","note":"${'x'.repeat(70000)}"},"traceEvents":${JSON.stringify(events)}}`,
  );
  assert.equal((await sniffFormat(devtools)).format, 'chrome-trace');
  assert.deepEqual((await chromeTraceImporter.load(devtools, {})).tree, p.tree);
  for (const size of [7, 64]) {
    const r = await readChromeTrace(path, { chunkSize: size });
    assert.deepEqual(r.tree, p.tree, `chunks of ${size}`);
    assert.deepEqual(r.timeline, p.timeline, `chunks of ${size}`);
    assert.deepEqual(r.lineHits, p.lineHits, `chunks of ${size}`);
  }
  // Walked (numbers straight into typed arrays, lines counted as they come) it reads as the events parsed whole would.
  const sink = new TraceSink();
  for (const e of events) sink.push(e);
  const whole = traceToModel(sink, path);
  assert.ok(p.lineHits.size > 0, 'the chunks carry lines');
  assert.deepEqual(p.tree, whole.tree);
  assert.deepEqual(p.timeline, whole.timeline);
  assert.deepEqual(p.lineHits, whole.lineHits);
  assert.deepEqual(p.frames, whole.frames);
});

test("two processes' profiles in one trace become two processes of the model, on one time axis", async () => {
  const a = nodeTrace('a', FIB('fibA', 250));
  const b = nodeTrace('b', FIB('fibB', 250));
  const path = file(JSON.stringify({ traceEvents: [...a.events, ...b.events], metadata: { source: 'test' } }));
  const p = await chromeTraceImporter.load(path, {});
  assert.equal(p.threads.length, 2);
  const pids = p.threads.map((t) => t.pid).sort();
  assert.deepEqual(pids, [a.events[0].pid, b.events[0].pid].sort());
  assert.deepEqual(p.meta.processes?.map((x) => x.pid).sort(), pids);
  assert.equal(p.tree.weight, chunkSamples(a.events) + chunkSamples(b.events));
  const self = selfByName(p);
  assert.ok((self.get('fibA') ?? 0) > 50 && (self.get('fibB') ?? 0) > 50, `fibA ${self.get('fibA')}, fibB ${self.get('fibB')}`);
  // b ran after a: its samples come later on the shared clock.
  assert.ok(p.timeline && p.timeline.times.length === p.tree.weight);
  for (let i = 1; i < p.timeline.times.length; i++) assert.ok(p.timeline.times[i] >= p.timeline.times[i - 1]);
});

test('truncated or ill-typed traces are refused with a clear error, not a crash', async () => {
  const { path } = nodeTrace('bad', FIB('fibBad', 100));
  const text = readFileSync(path, 'utf8');
  const cut = file(text.slice(0, Math.floor(text.length / 2)));
  await assert.rejects(
    chromeTraceImporter.load(cut, {}),
    (e: Error) => e instanceof ProfileError && /trace is truncated or corrupt/.test(e.message),
  );
  const noProfile = file(
    '{"traceEvents":[1,null,"x",[],{"name":"ProfileChunk","pid":1,"id":"0x1","args":{"data":{"cpuProfile":{"nodes":"x","samples":[1,"a"]}}}}]}',
  );
  await assert.rejects(
    chromeTraceImporter.load(noProfile, {}),
    (e: Error) => e instanceof ProfileError && /holds no CPU profile/.test(e.message),
  );
  const notArray = file('{"traceEvents": 5}');
  await assert.rejects(
    chromeTraceImporter.load(notArray, {}),
    (e: Error) => e instanceof ProfileError && /no "traceEvents"/.test(e.message),
  );
  const badNodes = file(
    '[{"ph":"P","name":"ProfileChunk","pid":1,"id":"0x1","args":{"data":{"cpuProfile":{"nodes":[5,{"id":"a"}],"samples":[1]}}}}]',
  );
  await assert.rejects(
    chromeTraceImporter.load(badNodes, {}),
    (e: Error) => e instanceof ProfileError && /lacks "id" or "callFrame"/.test(e.message),
  );
  // Samples of the wrong type count as unaccounted, deltas of the wrong type as 0: read, with a warning.
  const odd = file(
    '{"traceEvents":[{"ph":"P","name":"Profile","pid":1,"tid":1,"id":"0x1","args":{"data":{"startTime":100}}},' +
      '{"ph":"P","name":"ProfileChunk","pid":1,"tid":2,"id":"0x1","args":{"data":{"cpuProfile":{"nodes":[{"id":1,"callFrame":{"functionName":"(root)"}},' +
      '{"id":2,"parent":1,"callFrame":{"functionName":"work","url":"file:///w.js","lineNumber":1}}],"samples":[2,"x",2,9]},"timeDeltas":[10,"y",10,10]}}}]}',
  );
  const p = await chromeTraceImporter.load(odd, {});
  assert.equal(p.tree.weight, 4);
  assert.equal(selfByName(p).get('work'), 2);
  assert.ok(
    p.warnings.some((w) => /2 samples point at nodes/.test(w)),
    p.warnings.join('; '),
  );
});
