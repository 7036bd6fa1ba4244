// Runs mutated inputs through the real importers in import workers (dist/worker.js) with a time
// limit: each case must end in a Profile (maybe with warnings) or a one-line ProfileError.
import { createHash } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { exportProfile } from '../../src/core/exporters';
import { MAX_PPROF_BYTES } from '../../src/core/importers/pprof';
import { CATEGORIES, ProfileError, type Profile } from '../../src/core/model';
import { ImportCancelled, ImportWorker } from '../../src/core/workerClient';
import { ViewerSession } from '../../src/core/viewer/viewerSession';
import { mutate, type Seed, type SeedFormat } from './mutate';
import { derivedSeeds } from './structureMutations';

export interface Failure {
  kind: 'crash' | 'hang' | 'slow' | 'invalid' | 'export' | 'error-message';
  seed: string;
  n: number;
  ops: string[];
  detail: string;
  ms: number;
  /** Where the input was saved, when a crash folder was given. */
  file?: string;
}

export interface FuzzOptions {
  seeds: Seed[];
  cases: number;
  fuzzSeed: number;
  workerPath: string;
  jobs?: number;
  /** A case taking longer (twice in a row), plus 1.5 ms per KiB of input, is a failure. */
  slowMs?: number;
  /** A case still running after this is a hang: its worker is ended and a new one started. */
  hangMs?: number;
  crashDir?: string;
  /** Also write every profile out in these formats (catches model/exporter bugs the input triggers). */
  exportFormats?: string[];
  onProgress?: (done: number) => void;
  /** Stop starting new cases after this long (a bounded run inside `npm test`). */
  deadlineMs?: number;
  /** Aborting stops starting new cases; the result covers the cases run so far. */
  stop?: AbortSignal;
  /** Only these case numbers (to replay a saved failure). */
  only?: number[];
  /** Also run the viewer's steps on every profile: first screen, bottom-up tree, reveal of the deepest frame. */
  display?: boolean;
}

/** What opening a profile in the viewer runs, and a reveal of its deepest frame (the editor's "show in flame graph"). */
function display(p: Profile): void {
  const s = new ViewerSession(p, 'fuzz', '/fuzz');
  s.opening({});
  s.tree('bottom');
  const d = p.tree.depths();
  let deepest = 0;
  for (let i = 1; i < p.tree.count; i++) if (d[i] > d[deepest]) deepest = i;
  if (deepest > 0) s.reveal(p.tree.frame[deepest]);
}

export interface FuzzResult {
  cases: number;
  profiles: number;
  withWarnings: number;
  profileErrors: number;
  /** Exports refused with a one-line ProfileError (a format that cannot hold the profile). */
  exportRefusals: number;
  failures: Failure[];
  ms: number;
  slowest: { ms: number; seed: string; n: number };
  /** Per seed: cases and summed import milliseconds. */
  perSeed: Record<string, { cases: number; ms: number }>;
}

const SEEDS: [string, SeedFormat][] = [
  ['seed-v8.log', 'v8log'],
  ['seed.cpuprofile', 'cpuprofile'],
  ['seed.perf.txt', 'perf'],
  ['seed.folded', 'folded'],
];

/** The bytes an importer reads: a gzip stream's inflated size, as far as the pprof importer would inflate it. */
function readSize(bytes: Buffer): number {
  if (bytes[0] !== 0x1f || bytes[1] !== 0x8b) return bytes.length;
  try {
    return gunzipSync(bytes, { maxOutputLength: MAX_PPROF_BYTES }).length;
  } catch (e) {
    // A gzip bomb: the importer inflates it up to its cap before it refuses (CI rehearsal 27a: a 228 MB bomb read in
    // 1,392 ms twice against a limit counted from its 241 kB).
    return (e as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE' ? MAX_PPROF_BYTES : bytes.length;
  }
}

/** The checked-in seeds (test/fixtures/fuzz, made by make-seeds.sh). */
export function loadSeeds(dir: string): Seed[] {
  // pprof and heap profile seeds are the .cpuprofile seed's run in those formats, made here (no binary fixture in git).
  const derived = derivedSeeds(dir);
  return [
    ...SEEDS.map(([name, format]) => ({ name, format, bytes: readFileSync(join(dir, name)) })),
    { name: 'seed.pb', format: 'pprof', bytes: derived.pprof },
    { name: 'seed.heapprofile', format: 'heapprofile', bytes: derived.heapprofile },
  ];
}

/** Breaks of the model's own promises: what a view would trip over later. */
export function checkProfile(p: Profile): string | null {
  const t = p.tree;
  if (!(t.count >= 1)) return `tree.count ${t.count}`;
  for (let i = 1; i < t.count; i++) {
    if (!(t.parent[i] >= 0 && t.parent[i] < i)) return `node ${i} has parent ${t.parent[i]}`;
    if (!(t.frame[i] >= 0 && t.frame[i] < p.frames.length)) return `node ${i} has frame ${t.frame[i]} of ${p.frames.length}`;
  }
  for (let i = 0; i < t.count; i++) {
    if (!Number.isFinite(t.self[i]) || t.self[i] < 0) return `node ${i} has self weight ${t.self[i]}`;
    if (!Number.isFinite(t.selfTime[i]) || t.selfTime[i] < 0) return `node ${i} has self time ${t.selfTime[i]}`;
  }
  for (let i = 0; i < p.frames.length; i++) {
    const f = p.frames[i];
    if (typeof f.name !== 'string' || typeof f.file !== 'string') return `frame ${i} name/file not strings`;
    if (!Number.isInteger(f.line) || f.line < 0 || !Number.isInteger(f.column) || f.column < 0)
      return `frame ${i} at line ${f.line} column ${f.column}`;
    if (!CATEGORIES.includes(f.category)) return `frame ${i} category ${f.category}`;
  }
  const d = p.meta.durationMs;
  if (d !== null && !(Number.isFinite(d) && d >= 0)) return `durationMs ${d}`;
  if (p.timeline) {
    const { nodes, times } = p.timeline;
    if (nodes.length !== times.length) return 'timeline nodes/times differ in length';
    for (let i = 0; i < nodes.length; i++) {
      if (nodes[i] >= t.count) return `timeline sample ${i} on node ${nodes[i]}`;
      if (!Number.isFinite(times[i])) return `timeline sample ${i} at ${times[i]}`;
    }
  }
  for (const w of p.warnings)
    if (typeof w !== 'string' || w.length > 2000 || /[\r\n]/.test(w))
      return `warning not one short line: ${JSON.stringify(String(w).slice(0, 200))}`;
  return null;
}

function save(dir: string, f: Failure, seed: Seed, bytes: Buffer, fuzzSeed: number): string {
  mkdirSync(dir, { recursive: true });
  const hash = createHash('sha1').update(bytes).digest('hex').slice(0, 10);
  const file = join(dir, `${f.kind}-${hash}-${seed.name}`);
  writeFileSync(file, bytes);
  const replay = `npm run fuzz -- --seed ${fuzzSeed} --only ${f.n}   or: node dist/cli.js report ${file}`;
  writeFileSync(`${file}.json`, JSON.stringify({ ...f, replay }, null, 2) + '\n');
  return file;
}

interface Slot {
  worker: ImportWorker;
  file: string;
  /** Source maps are looked up only where a case names special files (the paths they make the importer read). */
  sourceMaps?: boolean;
}

export async function runFuzz(o: FuzzOptions): Promise<FuzzResult> {
  const slowMs = o.slowMs ?? 1000;
  const hangMs = o.hangMs ?? 10000;
  const jobs = o.jobs ?? 2;
  const tmp = mkdtempSync(join(tmpdir(), 'nf-fuzz-'));
  const res: FuzzResult = {
    cases: 0,
    profiles: 0,
    withWarnings: 0,
    profileErrors: 0,
    exportRefusals: 0,
    failures: [],
    ms: 0,
    slowest: { ms: 0, seed: '', n: -1 },
    perSeed: {},
  };
  const list = o.only ?? Array.from({ length: o.cases }, (_, i) => i);
  let next = 0;
  const t0 = performance.now();

  const fail = (f: Failure, seed: Seed, bytes: Buffer) => {
    if (o.crashDir) f.file = save(o.crashDir, f, seed, bytes, o.fuzzSeed);
    res.failures.push(f);
  };

  /** One timed import; `hang` true when the time limit ended it. */
  const attempt = async (slot: Slot): Promise<{ ms: number; profile?: Profile; error?: Error; hang?: boolean }> => {
    const start = performance.now();
    let timer: NodeJS.Timeout | undefined;
    const limit = new Promise<'hang'>((resolve) => (timer = setTimeout(() => resolve('hang'), hangMs)));
    try {
      const r = await Promise.race([
        slot.worker.load(slot.file, { sourceMaps: !!slot.sourceMaps }).then(
          (profile) => ({ profile }),
          (error: Error) => ({ error }),
        ),
        limit,
      ]);
      const ms = performance.now() - start;
      if (r === 'hang') {
        await slot.worker.terminate();
        slot.worker = new ImportWorker(o.workerPath);
        return { ms, hang: true };
      }
      if ('error' in r && !(r.error instanceof ProfileError)) {
        // A worker that died (or was ended) cannot take the next case.
        await slot.worker.terminate();
        slot.worker = new ImportWorker(o.workerPath);
      }
      return { ms, ...r };
    } finally {
      clearTimeout(timer);
    }
  };

  const runSlot = async (k: number) => {
    const slot: Slot = { worker: new ImportWorker(o.workerPath), file: '' };
    try {
      while (next < list.length && !o.stop?.aborted && !(o.deadlineMs && performance.now() - t0 > o.deadlineMs)) {
        const n = list[next++];
        const seed = o.seeds[n % o.seeds.length];
        const { bytes, ops } = mutate(seed, o.fuzzSeed, n);
        // Keep the seed's extension: importers sniff content, but people also name files.
        slot.file = join(tmp, `case-${k}-${basename(seed.name)}`);
        writeFileSync(slot.file, bytes);
        // Reading takes time in proportion to size: 1.5 ms per KiB on top (a 4 MiB case may take 7 s);
        // for a gzipped pprof, of what it inflates to (up to the importer's cap).
        const slowFor = slowMs + (1.5 * readSize(bytes)) / 1024;
        slot.sourceMaps = ops.some((op) => op.startsWith('special-file'));
        let r = await attempt(slot);
        if (!r.hang && r.ms > slowFor) r = await attempt(slot); // a loaded machine gets a second chance
        res.cases++;
        if (r.ms > res.slowest.ms) res.slowest = { ms: r.ms, seed: seed.name, n };
        const ps = (res.perSeed[seed.name] ??= { cases: 0, ms: 0 });
        ps.cases++;
        ps.ms += r.ms;
        const base = { seed: seed.name, n, ops, ms: Math.round(r.ms) };
        if (r.hang) fail({ ...base, kind: 'hang', detail: `still running after ${hangMs} ms` }, seed, bytes);
        else if (r.ms > slowFor)
          fail(
            {
              ...base,
              kind: 'slow',
              detail: `took ${Math.round(r.ms)} ms twice (limit ${Math.round(slowFor)} ms for ${bytes.length} bytes)`,
            },
            seed,
            bytes,
          );
        if (r.error) {
          if (r.error instanceof ImportCancelled || !(r.error instanceof ProfileError)) {
            fail({ ...base, kind: 'crash', detail: (r.error.stack ?? r.error.message).split('\n').slice(0, 6).join('\n') }, seed, bytes);
          } else {
            res.profileErrors++;
            const m = r.error.message;
            if (!m || /[\r\n]/.test(m) || m.length > 1000)
              fail({ ...base, kind: 'error-message', detail: `not one short line: ${JSON.stringify(m.slice(0, 300))}` }, seed, bytes);
          }
        } else if (r.profile) {
          res.profiles++;
          if (r.profile.warnings.length) res.withWarnings++;
          const bad = checkProfile(r.profile);
          if (bad) fail({ ...base, kind: 'invalid', detail: bad }, seed, bytes);
          // Every format for deep stacks and huge shapes (where recursion and quadratic steps bite), else one format per case in turn.
          const fmts = o.exportFormats ?? [];
          const deep = ops.some((op) => /deep|chain|huge|long-run/.test(op));
          const t0 = performance.now();
          for (const fmt of deep ? fmts : fmts.slice(n % Math.max(1, fmts.length)).slice(0, 1)) {
            try {
              exportProfile(r.profile, fmt, { top: 20 });
            } catch (e) {
              // A format that cannot hold the profile (stacks too deep to write whole) says so in one line.
              if (e instanceof ProfileError && !/[\r\n]/.test(e.message)) res.exportRefusals++;
              else
                fail(
                  { ...base, kind: 'export', detail: `${fmt}: ${((e as Error).stack ?? String(e)).split('\n').slice(0, 6).join('\n')}` },
                  seed,
                  bytes,
                );
            }
          }
          // The viewer's steps for the shapes they are there for, and for every eighth case besides.
          if (o.display && (deep || n % 8 === 0)) {
            try {
              display(r.profile);
            } catch (e) {
              fail(
                { ...base, kind: 'export', detail: `viewer: ${((e as Error).stack ?? String(e)).split('\n').slice(0, 6).join('\n')}` },
                seed,
                bytes,
              );
            }
          }
          // Exports and viewer steps run here, not in the worker: a step over the limit is a hang all the same.
          const after = performance.now() - t0;
          if (after > hangMs)
            fail(
              { ...base, ms: Math.round(after), kind: 'hang', detail: `exports and viewer steps took ${Math.round(after)} ms` },
              seed,
              bytes,
            );
        }
        o.onProgress?.(res.cases);
      }
    } finally {
      await slot.worker.terminate();
    }
  };

  try {
    await Promise.all(Array.from({ length: jobs }, (_, k) => runSlot(k)));
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  res.ms = performance.now() - t0;
  return res;
}
