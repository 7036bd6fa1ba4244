// A tick's stack starts from the callers it shares with the stack built before it (v8log/callerPath.ts): on a real
// log of deep stacks most caller frames are reused, and the profile is the one built without reuse, node for node;
// and the one built when the callers' stacks are not kept for later ticks (the reader keeps a bounded number), and the
// one built when no return address's answer is kept (kept answers are checked on use against the code they came from).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ProfileBuilder, type Profile } from '../../src/core/model';
import { IsolateLog } from '../../src/core/importers/v8log/isolate';
import { NativeResolver } from '../../src/core/importers/v8log/native';

// Deep stacks that differ from tick to tick, as a compiler's do: a tree walk through five functions (each calling the
// next from two lines, so call-site inference weighs sites) under a 30-deep recursion, its leaves doing a little work;
// Sparkplug code everywhere (no positions: inferred lines), TurboFan code where hot, compiled while ticks arrive.
const WALKERS = [0, 1, 2, 3, 4]
  .map(
    (k) =>
      `function w${k}(d) { if (d === 0) return leaf(${k}); let s = 0; s += w${(k + 1) % 5}(d - 1);\n  s += w${(k + 2) % 5}(d - 1);\n  s += w${(k + 1) % 5}(d - 1);\n  return s; }`,
  )
  .join('\n');
const PROGRAM = `
function leaf(k) { let s = 0; for (let i = 0; i < 200; i++) s += (i * k) % 7; return s; }
${WALKERS}
function down(d, f) { return d === 0 ? f() : down(d - 1, f) + 1; }
const end = Date.now() + 1500;
let t = 0;
while (Date.now() < end) t += down(30, () => w0(8));
console.log(t > 0);
`;

async function replay(
  log: string,
  reuseCallers: boolean,
  maxRests?: number,
  keepReturns?: boolean,
): Promise<{ p: Profile; iso: IsolateLog }> {
  const builder = new ProfileBuilder('v8log', { durationMs: null });
  const iso = new IsolateLog({ builder, native: new NativeResolver(undefined, false), reuseCallers, maxRests, keepReturns });
  for (const line of readFileSync(log, 'latin1').split('\n')) {
    if (!line) continue;
    const r = iso.line(line);
    if (r) await r;
  }
  iso.finish();
  return { p: builder.build(), iso };
}

test(
  'caller frames shared with the stack before are reused, and the profile is the same as without, and without the stacks kept',
  { timeout: 60_000 },
  async () => {
    const dir = mkdtempSync(join(tmpdir(), 'nf-reuse-'));
    try {
      writeFileSync(join(dir, 'prog.js'), PROGRAM);
      const r = spawnSync(process.execPath, ['--prof', '--always-sparkplug', 'prog.js'], { cwd: dir, encoding: 'utf8', timeout: 30_000 });
      assert.equal(r.status, 0, r.stderr);
      const log = join(dir, readdirSync(dir).find((n) => n.startsWith('isolate-') && n.endsWith('.log'))!);
      const reused = await replay(log, true);
      const fresh = await replay(log, false);
      // A cache of one callers' stack: every tick's stack built again, its hits flushed before the next.
      const uncached = await replay(log, true, 1);
      // Every return address read from its code again, and every stack built afresh, so each frame is resolved anew.
      const unkept = await replay(log, false, 1, false);
      const kept = reused.iso.keptReturns;
      console.log(`kept return answers used: ${kept.used}, found stale: ${kept.stale}`);
      assert.ok(kept.used > 0, 'kept answers were used');
      assert.deepEqual(unkept.iso.keptReturns, { used: 0, stale: 0 });
      const { callerFrames, reusedCallerFrames } = reused.iso;
      console.log(
        `caller frames: ${callerFrames}, reused: ${reusedCallerFrames} (${((100 * reusedCallerFrames) / callerFrames).toFixed(0)} %)`,
      );
      assert.ok(callerFrames > 5000, `deep stacks: ${callerFrames} caller frames`);
      assert.ok(reusedCallerFrames > 0.5 * callerFrames, `reused ${reusedCallerFrames} of ${callerFrames}`);
      assert.equal(fresh.iso.reusedCallerFrames, 0);
      for (const other of [fresh, uncached, unkept]) sameProfile(reused, other);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
);

/** Node for node, frame for frame, line hits in the same order, the same notes. */
function sameProfile(x: { p: Profile; iso: IsolateLog }, y: { p: Profile; iso: IsolateLog }): void {
  const a = x.p;
  const b = y.p;
  assert.equal(a.tree.count, b.tree.count);
  assert.deepEqual(Array.from(a.tree.parent.subarray(0, a.tree.count)), Array.from(b.tree.parent.subarray(0, b.tree.count)));
  assert.deepEqual(Array.from(a.tree.frame.subarray(0, a.tree.count)), Array.from(b.tree.frame.subarray(0, b.tree.count)));
  assert.deepEqual(Array.from(a.tree.self.subarray(0, a.tree.count)), Array.from(b.tree.self.subarray(0, b.tree.count)));
  assert.deepEqual(a.frames, b.frames);
  assert.deepEqual(
    [...a.lineHits].map(([f, m]) => [f, [...m]]),
    [...b.lineHits].map(([f, m]) => [f, [...m]]),
  );
  assert.deepEqual(x.iso.notes('log'), y.iso.notes('log'));
}
