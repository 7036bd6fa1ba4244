// A loop inlined four calls deep (asyncWork → arrow → method → get big → area): prof reads V8's inlining tables and
// names `area`; perf's map names only the code object V8 compiled, so the same time is `asyncWork`'s own. That
// difference is perf's, not a fault, but a user comparing the two modes must be told: perf says so where it weighs.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { JsonReport } from '../../src/core/exporters/json';
import { preflightPerf } from '../../src/launch/perf';
import { inlinedLoopProgram, profileJson } from '../helpers/cli';

const work = mkdtempSync(join(tmpdir(), 'nf-inlined-'));
after(() => rmSync(work, { recursive: true, force: true }));
writeFileSync(
  join(work, 'inlined.js'),
  inlinedLoopProgram(`async function asyncWork() { for (let k = 0; k < 50; k++) { arrow(); await null; } }
const end = Date.now() + 2000;
(async () => { while (Date.now() < end) await asyncWork(); })();`),
);
writeFileSync(
  join(work, 'native.js'),
  `const { pbkdf2Sync } = require('node:crypto');
const end = Date.now() + 1500;
while (Date.now() < end) pbkdf2Sync('secret', 'salt', 20000, 64, 'sha512');
`,
);

const NOTE = /of the samples ran in optimized JavaScript .*perf sees only the function that was compiled/;

const profile = (mode: string, app: string) => profileJson<JsonReport>(work, mode, `${mode}-${app}`, ['node', app]);

const self = (r: JsonReport, name: string) => r.functions.find((f) => f.name === name)?.self ?? 0;

test('inlined code: prof names the inlined loop, perf holds it in the compiled caller and says why', { timeout: 240_000 }, async (t) => {
  const prof = await profile('prof', 'inlined.js');
  assert.ok(self(prof.report, 'area') > 0.5, `prof: area's own ${self(prof.report, 'area')}`);
  assert.doesNotMatch(prof.stderr, NOTE, 'prof tells inlined functions apart: no such note');
  const pre = await preflightPerf();
  if (!pre.ok) return t.skip(pre.message);
  const perf = await profile('perf', 'inlined.js');
  t.diagnostic(
    `self: prof area ${self(prof.report, 'area')}, perf asyncWork ${self(perf.report, 'asyncWork')} area ${self(perf.report, 'area')}`,
  );
  assert.ok(self(perf.report, 'asyncWork') > 0.5, `perf: the compiled caller holds the loop (${self(perf.report, 'asyncWork')})`);
  assert.match(perf.stderr, NOTE);
  // Where the time is in native code the note would be noise.
  const native = await profile('perf', 'native.js');
  assert.doesNotMatch(native.stderr, NOTE, native.stderr);
});
