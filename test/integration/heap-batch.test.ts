// Heap mode on a short batch program: its functions at their file:line although V8 would forget its main
// script by exit (the preload holds a sloppy main module's function to the end; for a strict one it looks at the
// profile at the main module's last line and writes the positions back), and live mode shows what the program
// held then (at exit, after a full GC, its data is gone with its module).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cli } from '../helpers/paths';
import { runCli, runDirOf } from '../helpers/cli';

const work = mkdtempSync(join(tmpdir(), 'nf-heapbatch-'));
after(() => rmSync(work, { recursive: true, force: true }));
const leakJs = join(work, 'leak.js');
writeFileSync(
  leakJs,
  `const kept = [];
function fill(n, v) {
  return new Array(n).fill(v);
}
function leak(i) {
  kept.push(fill(2000, i));
}
function churn(i) {
  let t = 0;
  for (let k = 0; k < 20; k++) t += fill(500, k).length;
  return t;
}
for (let i = 0; i < 3000; i++) {
  leak(i);
  churn(i);
}
console.log(kept.length);
`,
);
// The same program in strict code: its module function cannot be held (no `arguments.callee`), the look is taken.
const strictJs = join(work, 'strict.js');
writeFileSync(strictJs, `'use strict';\n${readFileSync(leakJs, 'utf8')}`);
const declaredIn = (file: string, name: string) =>
  readFileSync(file, 'utf8')
    .split('\n')
    .findIndex((l) => l.startsWith(`function ${name}(`)) + 1;
const declared = (name: string) => declaredIn(leakJs, name);

interface Fn {
  name: string;
  file: string | null;
  line: number | null;
  total: number;
}

async function heap(samples: string, file = leakJs): Promise<Fn[]> {
  const r = await runCli(['profile', '--mode', 'heap', '--heap-samples', samples, '--no-report', '--out', work, '--', 'node', file], {
    cwd: work,
    killAfterMs: 60_000,
  });
  assert.equal(r.code, 0, r.stderr);
  const rep = spawnSync(process.execPath, [cli, 'report', runDirOf(r), '--format', 'json', '--top', '500'], { encoding: 'utf8' });
  assert.equal(rep.status, 0, rep.stderr);
  return (JSON.parse(rep.stdout) as { functions: Fn[] }).functions.filter((f) => f.file === file);
}

test(
  'heap, allocated, strict main module: the positions V8 forgot by exit are written back from the look',
  { timeout: 60_000 },
  async () => {
    const fns = await heap('allocated', strictJs);
    console.log(`allocated, strict: ${fns.map((f) => `${f.name}:${f.line} ${f.total}`).join(', ')}`);
    for (const name of ['leak', 'churn', 'fill']) {
      const f = fns.find((x) => x.name === name);
      assert.ok(f, `${name} at a file: ${JSON.stringify(fns)}`);
      assert.equal(f.line, declaredIn(strictJs, name), `${name}'s line`);
    }
  },
);

test('heap, allocated: leak, churn and fill at their file:line, churn making the most', { timeout: 60_000 }, async () => {
  const fns = await heap('allocated');
  console.log(`allocated: ${fns.map((f) => `${f.name}:${f.line} ${f.total}`).join(', ')}`);
  for (const name of ['leak', 'churn', 'fill']) {
    const f = fns.find((x) => x.name === name);
    assert.ok(f, `${name} at a file: ${JSON.stringify(fns)}`);
    assert.equal(f.line, declared(name), `${name}'s line`);
  }
  assert.ok(fns.find((f) => f.name === 'churn')!.total > fns.find((f) => f.name === 'leak')!.total);
});

test('heap, live: leak first, at its line; churn, whose arrays died, below it', { timeout: 60_000 }, async () => {
  const fns = await heap('live');
  console.log(`live: ${fns.map((f) => `${f.name}:${f.line} ${f.total}`).join(', ')}`);
  const ranked = fns.filter((f) => f.name === 'leak' || f.name === 'churn').sort((a, b) => b.total - a.total);
  assert.equal(ranked[0]?.name, 'leak', JSON.stringify(fns));
  assert.equal(ranked[0].line, declared('leak'));
  assert.ok(ranked[0].total > 0.5, `leak holds most of what is live: ${ranked[0].total}`);
});
