import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadProfile } from '../../src/core/importers';
import type { Profile } from '../../src/core/model';
import { cli } from '../helpers/paths';

// V8 frees short-lived code and reuses its addresses: perf mode must name a sample by the code that was at its
// address when it was taken (the jitdump's timed records), not by the first name the map ever wrote there.
const probe = spawnSync('perf', ['stat', '-e', 'cpu-clock:u', '-x', ',', '-o', '/dev/null', '--', 'true'], { encoding: 'utf8' });
const skip = probe.status === 0 ? false : `perf cannot record here: ${probe.error?.message ?? probe.stderr.trim()}`;

export const REUSE = `
let keep = 0;
for (let i = 0; i < 30000; i++) {
  const f = new Function('x', 'let s = x; for (let k = 0; k < 50; k++) s = (s * 31 + k + ' + i + ') | 0; return s;');
  keep ^= f(i);
}
for (let r = 0; r < 40; r++) { let junk = []; for (let i = 0; i < 100000; i++) junk.push({ i, s: 'x' + i }); junk = null; }
function leafWork(n) { let s = 0; for (let i = 0; i < n; i++) s = (s + i * i) % 1000003; return s; }
function callerA() { return leafWork(20000); }
function callerB() { return leafWork(20000); }
const t = Date.now();
while (Date.now() - t < 2000) { keep ^= callerA(); keep ^= callerB(); }
console.log(keep);
`;

/** leafWork's samples by the JS function right above it. */
export function leafCallers(p: Profile): Map<string, number> {
  const out = new Map<string, number>();
  p.tree.forEachStack((stack, w) => {
    const i = stack.map((f) => p.frames[f].name).lastIndexOf('leafWork');
    if (i < 1) return;
    const c = p.frames[stack[i - 1]];
    const key = `${c.name} ${c.file}:${c.line}`;
    out.set(key, (out.get(key) ?? 0) + w);
  });
  return out;
}

test('perf mode names reused JIT addresses by the code there at each sample', { skip, timeout: 120_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'nf-reuse-'));
  try {
    const script = join(dir, 'reuse.js');
    writeFileSync(script, REUSE);
    const t0 = Date.now();
    const r = spawnSync(process.execPath, [cli, 'profile', '-m', 'perf', '--no-report', '--out', join(dir, 'runs'), '--', 'node', script], {
      cwd: dir,
      encoding: 'utf8',
    });
    const recordMs = Date.now() - t0;
    assert.equal(r.status, 0, r.stderr);
    const run = join(dir, 'runs', readdirSync(join(dir, 'runs'))[0]);
    const files = readdirSync(run);
    assert.ok(
      files.some((n) => /^jit-\d+\.map$/.test(n)),
      `the run keeps the timed JIT records: ${files.join(', ')}`,
    );
    assert.ok(!readdirSync(dir).some((n) => n.startsWith('jit-')), 'no jitdump is left in the app folder');
    const t1 = Date.now();
    const p = await loadProfile(join(run, 'perf.data'), { sourceMaps: false });
    const importMs = Date.now() - t1;
    const callers = leafCallers(p);
    const total = [...callers.values()].reduce((a, b) => a + b, 0);
    const share = (name: string) => [...callers].filter(([k]) => k.startsWith(name + ' ')).reduce((a, [, w]) => a + w, 0) / total;
    const sizes = files.filter((n) => /\.(map|data)$/.test(n)).map((n) => `${n} ${(statSync(join(run, n)).size / 1e6).toFixed(1)} MB`);
    console.log(
      `[reuse] record ${recordMs} ms, import ${importMs} ms; ${sizes.join(', ')}; leafWork callers: ` +
        [...callers].map(([k, w]) => `${k} ${((100 * w) / total).toFixed(1)} %`).join(', '),
    );
    assert.ok(total > 500, `leafWork has ${total} samples`);
    // Both callers named, near half each: alone 45–53 % here; CI rehearsal 27b (two test files at a time) read callerA
    // 30 %, callerB 70 % (why the split moved under load was not looked into).
    assert.ok(share('callerA') >= 0.2 && share('callerA') <= 0.8, `callerA ${share('callerA')}`);
    assert.ok(share('callerB') >= 0.2 && share('callerB') <= 0.8, `callerB ${share('callerB')}`);
    // The preload's event-loop monitor really runs node:internal/perf code at start; none of it may sit in the hot loop.
    const wrong = new Set<string>();
    p.tree.forEachStack((stack) => {
      if (!stack.some((f) => ['leafWork', 'callerA', 'callerB'].includes(p.frames[f].name))) return;
      for (const f of stack) if (p.frames[f].file.startsWith('node:internal/perf')) wrong.add(`${p.frames[f].name} ${p.frames[f].file}`);
    });
    assert.deepEqual([...wrong], [], 'no frame from node:internal/perf in the stacks of callerA, callerB and leafWork');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
