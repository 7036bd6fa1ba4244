import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadProfile } from '../../src/core/importers';
import type { Profile } from '../../src/core/model';

// A perf run reopened after its /tmp/perf-<pid>.map is gone: the JIT frames are named from the run folder's
// copy of the map, and nothing is written into the shared /tmp while perf script runs.
const probe = spawnSync('perf', ['stat', '-e', 'cpu-clock:u', '-x', ',', '-o', '/dev/null', '--', 'true'], { encoding: 'utf8' });
const skip = probe.status === 0 ? false : `perf cannot record here: ${probe.error?.message ?? probe.stderr.trim()}`;

function folded(p: Profile): string[] {
  const out: string[] = [];
  p.tree.forEachStack((stack, w) => out.push(`${stack.map((f) => p.frames[f].name).join(';')} ${w}`));
  return out.sort();
}

test('a reopened perf run names its JIT frames from the folder without writing to /tmp', { skip }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'nf-jitmaps-'));
  try {
    const run = join(dir, 'run');
    mkdirSync(run);
    const script = join(dir, 'fib.js');
    writeFileSync(
      script,
      'function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }\nconst t = Date.now();\nwhile (Date.now() - t < 800) fib(20);\n',
    );
    const data = join(run, 'perf.data');
    const r = spawnSync(
      'perf',
      ['record', '-F', '499', '-g', '-o', data, '--', process.execPath, '--perf-basic-prof', '--interpreted-frames-native-stack', script],
      // --perf-basic-prof also opens V8's log (isolate-…-v8.log) in the working directory: not the repository's.
      { encoding: 'utf8', cwd: dir },
    );
    assert.equal(r.status, 0, r.stderr);
    const pids = readdirSync('/tmp').filter(
      (n) =>
        /^perf-\d+\.map$/.test(n) &&
        spawnSync('perf', ['script', '-i', data, '-F', 'pid'], { encoding: 'utf8' }).stdout.includes(n.slice(5, -4)),
    );
    assert.ok(pids.length > 0, 'the run wrote a JIT map');
    // As the launcher leaves a finished run: the map copied into the folder, the one in /tmp removed.
    for (const n of pids) renameSync(join('/tmp', n), join(run, n));

    let seen = 0;
    const watch = setInterval(() => (seen += pids.filter((n) => existsSync(join('/tmp', n))).length), 1);
    const t0 = Date.now();
    const mine = await loadProfile(data, { sourceMaps: false });
    clearInterval(watch);
    const ms = Date.now() - t0;

    // The reference: perf naming the frames itself from /tmp.
    for (const n of pids) copyFileSync(join(run, n), join('/tmp', n));
    let perfs: Profile;
    try {
      perfs = await loadProfile(data, { sourceMaps: false });
    } finally {
      for (const n of pids) rmSync(join('/tmp', n), { force: true });
    }
    const js = mine.frames.filter((f) => f.name === 'fib').length;
    console.log(
      `[jitmaps] ${pids.length} map(s); import ${ms} ms; /tmp map seen ${seen} times during it; ${folded(mine).length} stacks, fib frames ${js}; same stacks as perf's own naming: ${folded(mine).join('\n') === folded(perfs).join('\n')}`,
    );
    assert.equal(seen, 0, 'a map was put into /tmp while perf script ran');
    assert.ok(js > 0, 'fib is named');
    assert.ok(!mine.warnings.some((w) => /could not be named/.test(w)), mine.warnings.join(' | '));
    assert.deepEqual(folded(mine), folded(perfs), 'the same stacks as perf names them with the map in /tmp');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
