// `node-flame report --from/--to` on real `node --prof` and `--cpu-prof` runs of a program that idles, then
// runs hot in one function, then in another: the second stretch alone gives the second function, and the
// same shares as the model's range transform (what the viewer's Timeline applies).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadProfile } from '../../src/core/importers';
import { functionStats, type Profile } from '../../src/core/model';
import { applyTransforms } from '../../src/core/model/transforms';
import { cli, fixtures } from '../helpers/paths';

interface Report {
  samples: number;
  durationMs: number | null;
  startTime: number | null;
  endTime: number | null;
  functions: { name: string; self: number; total: number }[];
}

const report = (file: string, ...args: string[]) =>
  spawnSync(process.execPath, [cli, 'report', file, ...args], { encoding: 'utf8', env: { ...process.env, NODE_FLAME_LANG: 'en' } });
function json(file: string, ...args: string[]): Report {
  const r = report(file, '--format', 'json', '--top', '1000', ...args);
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout) as Report;
}
// Total, not self: in a tick log Math.cbrt is a C++ leaf under secondHot. One entry per frame, never nested here.
const shareOf = (r: Report, name: string) => r.functions.filter((f) => f.name === name).reduce((a, f) => a + f.total, 0);

/** Where the samples with a function on the stack start and end (ms from the first sample). */
function stretch(p: Profile, name: string): { from: number; to: number } {
  const tl = p.timeline!;
  let from = Infinity;
  let to = -Infinity;
  const on = (n: number): boolean => n > 0 && (p.frames[p.tree.frame[n]]?.name === name || on(p.tree.parent[n]));
  for (let i = 0; i < tl.times.length; i++) {
    if (!on(tl.nodes[i])) continue;
    from = Math.min(from, tl.times[i]);
    to = Math.max(to, tl.times[i]);
  }
  return { from, to };
}

test('report --from/--to keeps one stretch of a real run; the JSON says what it covers', { timeout: 120_000 }, async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'nf-range-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const script = join(fixtures, 'timeline', 'phases.js');
  const runs: Record<string, string[]> = {
    prof: ['--prof', script, '400', '500'],
    'cpu-prof': [
      '--cpu-prof',
      '--cpu-prof-interval',
      '1000',
      '--cpu-prof-dir',
      dir,
      '--cpu-prof-name',
      'phases.cpuprofile',
      script,
      '400',
      '500',
    ],
  };
  // perf timestamps feed the timeline too (perf works on this machine's CI; skipped where it is missing).
  if (spawnSync('perf', ['--version']).status === 0)
    runs.perf = ['-g', '-F', '999', '-o', join(dir, 'perf.data'), '--', process.execPath, '--perf-basic-prof', script, '400', '500'];
  for (const [mode, args] of Object.entries(runs)) {
    const r =
      mode === 'perf'
        ? spawnSync('perf', ['record', '-q', ...args], { cwd: dir, encoding: 'utf8' })
        : spawnSync(process.execPath, args, { cwd: dir, encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    const file = join(
      dir,
      mode === 'prof' ? readdirSync(dir).find((f) => /^isolate-.*\.log$/.test(f))! : mode === 'perf' ? 'perf.data' : 'phases.cpuprofile',
    );
    const profile = await loadProfile(file, { sourceMaps: false });
    const second = stretch(profile, 'secondHot');
    const first = stretch(profile, 'firstHot');
    assert.ok(first.to < second.from + 5 && second.to - second.from > 300, `${mode}: ${JSON.stringify({ first, second })}`);

    const whole = json(file);
    assert.equal(whole.startTime, 0, mode);
    assert.ok(whole.endTime !== null && whole.endTime >= second.to, `${mode}: endTime ${whole.endTime}`);
    assert.ok(shareOf(whole, 'firstHot') > 0.2, mode);

    const from = Math.ceil(first.to + 1);
    const to = Math.ceil(second.to + 1);
    const ranged = json(file, '--from', String(from), '--to', String(to));
    assert.equal(ranged.startTime, from, mode);
    // The end is the run's when the range goes past it.
    assert.equal(ranged.endTime, Math.min(to, whole.endTime!), mode);
    assert.equal(shareOf(ranged, 'firstHot'), 0, `${mode}: firstHot absent`);
    // perf also samples node's other threads (GC helpers, the kernel) while secondHot runs.
    assert.ok(shareOf(ranged, 'secondHot') > (mode === 'perf' ? 0.5 : 0.9), `${mode}: secondHot ${shareOf(ranged, 'secondHot')}`);
    assert.ok(ranged.samples < whole.samples, mode);
    // The same shares as the range transform the viewer applies.
    const model = applyTransforms(profile, [], { from, to });
    const modelShare = functionStats(model.tree, model.frames.length)
      .filter((s) => model.frames[s.frame].name === 'secondHot')
      .reduce((a, s) => a + s.total / model.tree.weight, 0);
    assert.ok(Math.abs(modelShare - shareOf(ranged, 'secondHot')) < 1e-6, `${mode}: ${modelShare} vs ${shareOf(ranged, 'secondHot')}`);
    // --from alone runs to the end; the text report follows too.
    assert.ok(shareOf(json(file, '--from', String(from)), 'firstHot') === 0, mode);
    assert.match(report(file, '--to', String(Math.floor(first.from))).stdout, /ticks/);
    // Two ranges of one profile compared: the first hot stretch against the second.
    const d = spawnSync(
      process.execPath,
      [
        cli,
        'diff',
        file,
        file,
        '--format',
        'json',
        '--before-range',
        `${Math.floor(first.from)}:${Math.ceil(first.to + 1)}`,
        '--after-range',
        `${from}:`,
      ],
      { encoding: 'utf8' },
    );
    assert.equal(d.status, 0, d.stderr);
    const changes = (JSON.parse(d.stdout) as { changes: { name: string; before: number; after: number }[] }).changes;
    const grew = changes.find((c) => c.name === 'secondHot');
    const shrank = changes.find((c) => c.name === 'firstHot');
    const most = mode === 'perf' ? 0.5 : 0.9;
    assert.ok(grew && grew.before < 0.05 && grew.after > most, `${mode}: ${JSON.stringify(grew)}`);
    assert.ok(shrank && shrank.before > most && shrank.after < 0.05, `${mode}: ${JSON.stringify(shrank)}`);
    console.log(
      `[integration] ${mode}: ${whole.samples} samples over ${whole.endTime} ms; --from ${from} --to ${to}: ${ranged.samples} samples, secondHot ${(100 * shareOf(ranged, 'secondHot')).toFixed(1)} %`,
    );
  }
  for (const bad of [
    ['--from', 'x'],
    ['--from', '-3'],
    ['--from', '50', '--to', '10'],
  ]) {
    const r = report(join(dir, 'phases.cpuprofile'), ...bad);
    assert.equal(r.status, 2, bad.join(' '));
    assert.match(r.stderr, /--(from|to)/);
  }
});
