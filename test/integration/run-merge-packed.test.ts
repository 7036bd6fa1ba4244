// A run of several processes read as one packs each process's timeline as it is read (whole µs steps, 2-byte nodes)
// and merges from there: on a real cpu-prof run of a parent and three forked children (one of them idle), the run folder reads as the
// same merged profile (tree, frames, timeline to the bit, line heat, threads) as the processes' own profiles merged
// unpacked, and the JSON report's per-process findings and functions are those of the processes read one by one.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { runCli, runDirOf } from '../helpers/cli';
import { loadProfile } from '../../src/core/importers';
import { findFindings, type Finding } from '../../src/core/findings';
import { mergeProfiles, type MergePart, type Profile } from '../../src/core/model';
import { packTimeline } from '../../src/core/model/packedTimeline';
import { loadRunProfile } from '../../src/launch/run/runProfile';
import { placeOnRunClock } from '../../src/launch/run/runClock';
import { openRun } from '../../src/launch/run/runFolder';
import { profilePid } from '../../src/launch/run/processRecords';

const work = mkdtempSync(join(tmpdir(), 'nf-packed-'));
after(() => rmSync(work, { recursive: true, force: true }));

// The parent works too; every process is kept (allProcesses), even one the run would call waiting under load.
const APP = `
const { fork } = require('node:child_process');
function spin(ms, f) { const end = Date.now() + ms; let x = 0; while (Date.now() < end) x += f(x); return x; }
function parentHot(x) { return Math.sqrt(x + 1) % 7; }
function childHot0(x) { return Math.sin(x) * 3; }
function childHot1(x) { return Math.cos(x) * 5; }
const which = process.argv[2];
if (which === 'idle') setTimeout(() => spin(5, childHot0), 700);
else if (which !== undefined) spin(300, [childHot0, childHot1][Number(which)]);
else {
  const kids = ['0', '1', 'idle'].map((k) => fork(__filename, [k]));
  spin(400, parentHot);
  let left = kids.length;
  for (const k of kids) k.on('exit', () => --left || process.exit(0));
}
`;

/** The tree's nodes (without the caches a read fills as it goes). */
const treeOf = (p: Profile) => {
  const t = p.tree;
  const n = t.count;
  return { n, parent: t.parent.slice(0, n), frame: t.frame.slice(0, n), self: t.self.slice(0, n), selfTime: t.selfTime.slice(0, n) };
};

test(
  'a run of four processes merged from packed timelines is the run merged from its processes as read',
  { timeout: 120_000 },
  async () => {
    writeFileSync(join(work, 'app.js'), APP);
    const r = await runCli(['profile', '--mode', 'cpu-prof', '--no-report', '--out', join(work, 'runs'), '--', 'node', 'app.js'], {
      cwd: work,
      killAfterMs: 90_000,
    });
    assert.equal(r.code, 0, r.stderr);
    const dir = runDirOf(r);
    const info = openRun(dir)!.info;
    const files = (info.profiles ?? []).map((f) => join(dir, f));
    assert.equal(files.length, 4, `one .cpuprofile per process: ${files.map((f) => basename(f)).join(', ')}`);

    const run = await loadRunProfile(dir, { sourceMaps: false, allProcesses: true });
    assert.equal(run.threads.length, 4);
    // The processes' own profiles, merged the way every part was before packing: labels and placement as the run gives them.
    const parts: MergePart[] = await Promise.all(
      files.map(async (f) => {
        const pid = profilePid(basename(f))!;
        const thread = run.threads.find((t) => t.pid === pid)!.name;
        return { profile: await loadProfile(f, { sourceMaps: false }), thread, pid, tid: 0 };
      }),
    );
    const origin = await placeOnRunClock(dir, info, parts);
    const meta = { ...parts[0].profile.meta, durationMs: Math.max(...parts.map((p) => p.profile.meta.durationMs ?? 0)) };
    const unpacked = mergeProfiles(parts, meta, { originMs: origin });
    assert.ok(unpacked.timeline && unpacked.timeline.times.length > 1000, `${unpacked.timeline?.times.length} samples`);
    assert.deepEqual(treeOf(run), treeOf(unpacked));
    assert.deepEqual(run.frames, unpacked.frames);
    assert.deepEqual(run.timeline, unpacked.timeline, 'every sample on the same node at the same time, to the bit');
    assert.deepEqual(run.lineHits, unpacked.lineHits);
    assert.deepEqual(run.threadLineHits, unpacked.threadLineHits);
    assert.deepEqual(run.threads, unpacked.threads);
    assert.equal(run.meta.startTime, unpacked.meta.startTime);
    assert.equal(run.meta.durationMs, unpacked.meta.durationMs);

    // A merge written the plain way: every part's samples on the run's axis, stably sorted by time (ties to the earlier
    // part); the run's timeline has each of them, on a node of the same call stack under that part's thread level.
    const origin0 = run.meta.startTime!;
    const want = parts
      .flatMap((p, j) => [...p.profile.timeline!.times].map((t, i) => ({ t: t + (p.startMs! - origin0), j, i })))
      .sort((a, b) => a.t - b.t || a.j - b.j || a.i - b.i);
    const got = run.timeline!;
    assert.equal(got.times.length, want.length, 'every sample of every process, once');
    const stacks = new Map<string, string>();
    const stackOf = (p: Profile, node: number, key: string) => {
      let s = stacks.get(key);
      if (s !== undefined) return s;
      const names: string[] = [];
      for (let n = node; n > 0; n = p.tree.parent[n]) names.push(p.frames[p.tree.frame[n]].name);
      stacks.set(key, (s = names.reverse().join(';')));
      return s;
    };
    for (let o = 0; o < want.length; o++) {
      const w = want[o];
      const part = parts[w.j];
      assert.equal(got.times[o], w.t, `time at ${o}`);
      const own = stackOf(part.profile, part.profile.timeline!.nodes[w.i], `${w.j}:${part.profile.timeline!.nodes[w.i]}`);
      assert.equal(stackOf(run, got.nodes[o], `run:${got.nodes[o]}`), `thread ${part.thread};${own}`, `stack at ${o}`);
    }

    // The same parts packed: whole µs steps (V8's deltas), 2-byte nodes; merged, the same profile. The steps are 2 bytes
    // unless a gap passed 65 ms: a loaded machine (CI, load 5-6) stalls the sampler that long, so either width is fine.
    const packed = parts.map((p) => ({ ...p, packed: packTimeline(p.profile.timeline!, p.profile.tree.count) }));
    for (const p of packed) {
      assert.ok(p.packed.steps !== undefined && p.packed.nodes instanceof Uint16Array, `${p.thread} packed small`);
      p.profile = { ...p.profile, timeline: undefined };
    }
    assert.deepEqual(mergeProfiles(packed, meta, { originMs: origin }), unpacked);

    // Each process's findings in the run (its gaps and nodes from one pass over the run's timeline, no copy of it) are
    // those of the process read alone; the idle child's among them.
    const found = findFindings(run);
    const idleShare = (p: Profile) => {
      let idle = 0;
      for (let n = 0; n < p.tree.count; n++) if (p.frames[p.tree.frame[n]]?.category === 'idle') idle += p.tree.self[n];
      return idle / p.tree.weight;
    };
    const idle = parts.find((p) => idleShare(p.profile) > 0.75);
    assert.ok(idle, `one process idled: ${parts.map((p) => idleShare(p.profile).toFixed(2)).join(', ')}`);
    assert.ok(
      found.some((f) => f.rule === 'mostly-idle' && f.pid === idle.pid),
      `the idle child is mostly idle: ${JSON.stringify(found)}`,
    );
    for (const part of parts) {
      const named = (p: Profile, fs: Finding[]) =>
        fs
          // Shares to 1e-9: a process's gaps are summed on the run's axis there, on its own here.
          .map((f) => ({
            ...f,
            pid: undefined,
            share: Math.round(f.share * 1e9),
            frame: f.frame === undefined ? undefined : p.frames[f.frame]?.name,
          }))
          .sort((a, b) => a.message.localeCompare(b.message));
      const inRun = named(
        run,
        found.filter((f) => f.pid === part.pid),
      );
      assert.deepEqual(inRun, named(part.profile, findFindings(part.profile)), part.thread);
    }
  },
);
