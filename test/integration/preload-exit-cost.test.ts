// The preload's exit look for in-memory source maps enabled V8's debugger, which hashes every script's source: on a
// program with big scripts (sass, 5 MB) that was ~50 ms of SHA-256 at exit, 3 % of a short --prof run's ticks, shown
// as the app's own time under node::inspector. It runs now only where an ES module loader may compile from memory.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../helpers/cli';
import { esmLoaderFlag } from '../../src/launch/preload/sourceMaps';

const work = mkdtempSync(join(tmpdir(), 'nf-exit-cost-'));
after(() => rmSync(work, { recursive: true, force: true }));

test('which node flags may load an ES module loader', () => {
  assert.equal(esmLoaderFlag(['--import', 'tsx']), true);
  assert.equal(esmLoaderFlag(['--import=tsx']), true);
  assert.equal(esmLoaderFlag([], '--max-old-space-size=100 --loader ts-node/esm'), true);
  assert.equal(esmLoaderFlag(['--experimental-loader=./l.mjs']), true);
  assert.equal(esmLoaderFlag(['--prof', '--require', '/x/preload-stop.js'], '--require "/x/preload-stop.js"'), false);
  assert.equal(esmLoaderFlag([]), false);
});

test('prof: a program with a 40 MB script shows no debugger work of ours at exit', { timeout: 120_000 }, async () => {
  // Hashing covers the whole source, comments included: a big comment makes the cost plain and the parse cheap.
  writeFileSync(
    join(work, 'big.js'),
    `/*${'x'.repeat(40e6)}*/\nmodule.exports = (n) => { let s = 0; for (let i = 0; i < n; i++) s += Math.sqrt(i); return s; };\n`,
  );
  writeFileSync(join(work, 'app.js'), `const f = require('./big.js'); const t = Date.now(); while (Date.now() - t < 300) f(1e4);\n`);
  const out = join(work, 'app.folded');
  const r = await runCli(
    ['profile', '--mode', 'prof', '--format', 'folded', '-o', out, '--out', join(work, 'runs'), '--', 'node', 'app.js'],
    {
      cwd: work,
      killAfterMs: 100_000,
    },
  );
  assert.equal(r.code, 0, r.stderr);
  const lines = readFileSync(out, 'utf8').split('\n').filter(Boolean);
  const weight = (re: RegExp) => lines.filter((l) => re.test(l)).reduce((s, l) => s + Number(l.slice(l.lastIndexOf(' ') + 1)), 0);
  const all = weight(/./);
  const inspector = weight(/node::inspector|SHA256/);
  console.log(`[exit cost] ${inspector} of ${all} ticks under node::inspector or SHA-256`);
  assert.ok(all > 100, `the run was sampled: ${all} ticks`);
  assert.ok(inspector <= 2, `no exit-time hashing of the app's scripts: ${inspector} ticks`);
});
