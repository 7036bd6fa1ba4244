// Hot spots from a real `node --cpu-prof` run: the lens lands on the hot function's first line and the
// line heat on the line that does the work.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadProfile } from '../../src/core/importers';
import { buildHotspots, callersAndCallees, hotFunctions } from '../../src/core/model/hotspots';
import { SourceFileMatcher } from '../../src/core/model/sourceFiles';

const SCRIPT = `'use strict';
function spin(n) {
  let x = 0;
  for (let i = 0; i < n; i++) x += Math.sqrt(i) * Math.sin(i);
  return x;
}

function main() {
  const end = Date.now() + 700;
  let s = 0;
  while (Date.now() < end) s += spin(20000);
  return s;
}
console.log(main() > 0 ? 'done' : 'done');
`;

test('a --cpu-prof run: lens on the hot function, heat on its loop, callers and callees', { timeout: 60_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'nf-hot-'));
  try {
    const script = join(dir, 'spin.mjs');
    writeFileSync(script, SCRIPT);
    execFileSync(process.execPath, ['--cpu-prof', '--cpu-prof-dir', dir, script], { stdio: 'ignore' });
    const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'));
    assert.ok(file, 'node wrote a .cpuprofile');
    const profile = await loadProfile(join(dir, file));
    const idx = buildHotspots(profile);

    const name = new SourceFileMatcher(idx.files.keys(), false).match(script);
    assert.ok(name, `the script is among the profile's files: ${[...idx.files.keys()].slice(0, 5)}`);
    const hs = idx.files.get(name)!;
    const hot = hotFunctions(hs, 0.01);
    const spin = hot.find((f) => f.name === 'spin');
    const main = hot.find((f) => f.name === 'main');
    assert.ok(spin && main, `spin and main get lenses: ${hot.map((f) => `${f.name}:${f.line}`)}`);
    assert.equal(spin.line, 2, 'the lens sits on the line `function spin` starts');
    assert.equal(main.line, 8);
    assert.ok(spin.totalShare > 0.3, `spin is hot: ${spin.totalShare}`);
    assert.ok(main.totalShare >= spin.totalShare, 'main contains spin');
    assert.ok(spin.selfShare > 0.2, 'spin does the work itself');

    const hottest = [...hs.lines].sort((a, b) => b.total - a.total)[0];
    assert.equal(hottest.line, 4, `the loop line is the hottest: ${JSON.stringify(hs.lines)}`);
    assert.equal(hottest.intensity > 0.5, true);

    const { callers } = callersAndCallees(idx, spin);
    assert.equal(profile.frames[callers[0].frame].name, 'main');
    assert.ok(callers[0].share > 0.9, 'nearly all of spin comes from main');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
