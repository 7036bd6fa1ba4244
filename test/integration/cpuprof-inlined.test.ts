// V8's CPU profiler gives the time of a function TurboFan inlined to the function it was inlined into, keeping the
// inlined lines in that function's positionTicks: `work` below holds area's loop, ticks on line 3. cpu-prof says so
// (lines above a function's own declaration cannot be its own); without inlining it says nothing.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { JsonReport } from '../../src/core/exporters/json';
import { runCli } from '../helpers/cli';

const work = mkdtempSync(join(tmpdir(), 'nf-cpuinl-'));
after(() => rmSync(work, { recursive: true, force: true }));
writeFileSync(
  join(work, 'inl2.js'),
  `class Shape {
  constructor(n) { this.n = n; }
  area() { let s = 0; for (let i = 0; i < this.n; i++) s += Math.sqrt(i); return s; }
  get big() { return this.area() > 10; }
}
const obj = { method() { return new Shape(3000).big; } };
const arrow = () => obj.method();
function work() { let c = 0; for (let k = 0; k < 50; k++) if (arrow()) c++; return c; }
const end = Date.now() + 2000;
while (Date.now() < end) work();
`,
);
// The same program in a child process: a run folder of two profiles, the warning from the child's.
writeFileSync(join(work, 'parent.js'), `require('node:child_process').fork(require('node:path').join(__dirname, 'inl2.js'));\n`);

const NOTE = /at least (\S+) % of the samples ran in functions V8 inlined into their caller, most of them in (\S+) \((.*?)\)/;

async function profile(name: string, command: string[]): Promise<{ report: JsonReport; stderr: string }> {
  const out = join(work, `${name}.json`);
  const r = await runCli(['profile', '--mode', 'cpu-prof', '--format', 'json', '-o', out, '--out', join(work, 'runs'), '--', ...command], {
    cwd: work,
    killAfterMs: 100_000,
  });
  assert.equal(r.code, 0, r.stderr);
  return { report: JSON.parse(readFileSync(out, 'utf8')) as JsonReport, stderr: r.stderr };
}

const self = (r: JsonReport, name: string) => r.functions.find((f) => f.name === name)?.self ?? 0;

test('cpu-prof: time of inlined functions held by their caller is said, with the caller named', { timeout: 240_000 }, async (t) => {
  const inl = await profile('inlined', ['node', 'inl2.js']);
  const m = NOTE.exec(inl.stderr);
  t.diagnostic(`work self ${self(inl.report, 'work')}, area self ${self(inl.report, 'area')}; note: ${m?.[0]}`);
  assert.ok(m, inl.stderr);
  assert.ok(Number(m[1]) >= 10, m[0]);
  assert.equal(m[2], 'work');
  assert.equal(m[3], `${join(work, 'inl2.js')}:8`);
  // Said, not re-attributed: `work` keeps the loop's time.
  assert.ok(self(inl.report, 'work') > 0.5, `work's own ${self(inl.report, 'work')}`);

  const plain = await profile('not-inlined', ['node', '--no-turbo-inlining', 'inl2.js']);
  t.diagnostic(`--no-turbo-inlining: area self ${self(plain.report, 'area')}`);
  assert.ok(self(plain.report, 'area') > 0.5, `area's own without inlining ${self(plain.report, 'area')}`);
  assert.doesNotMatch(plain.stderr, NOTE, plain.stderr);

  const child = await profile('child', ['node', 'parent.js']);
  t.diagnostic(`run folder of ${child.report.processes?.length} processes: ${NOTE.exec(child.stderr)?.[0]}`);
  assert.equal(NOTE.exec(child.stderr)?.[2], 'work', child.stderr);
});
