import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cli } from '../helpers/paths';

// perf weighs samples by period (ns of cpu-clock): the JSON `samples` and the folded weights must still count samples.
const probe = spawnSync('perf', ['stat', '-e', 'cpu-clock:u', '-x', ',', '-o', '/dev/null', '--', 'true'], { encoding: 'utf8' });
const skip = probe.status === 0 ? false : `perf cannot record here: ${probe.error?.message ?? probe.stderr.trim()}`;

test('perf mode: JSON samples and folded weights count samples; period totals have their own fields', { skip, timeout: 120_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'nf-units-'));
  try {
    const script = join(dir, 'loop.js');
    writeFileSync(
      script,
      'function spin() { let s = 0; const t = Date.now(); while (Date.now() - t < 1000) s += Math.sqrt(s + 1); return s; }\nspin();\n',
    );
    const runs = join(dir, 'runs');
    const r = spawnSync(process.execPath, [cli, 'profile', '-m', 'perf', '--no-report', '--out', runs, '--', 'node', script], {
      cwd: dir,
      encoding: 'utf8',
    });
    assert.equal(r.status, 0, r.stderr);
    const run = join(runs, readdirSync(runs)[0]);
    const report = (...args: string[]) => {
      const o = spawnSync(process.execPath, [cli, 'report', run, ...args], { encoding: 'utf8', maxBuffer: 1 << 28 });
      assert.equal(o.status, 0, o.stderr);
      return o.stdout;
    };
    const json = JSON.parse(report('-f', 'json')) as {
      samples: number;
      unit: string;
      sampleTimeMs?: number;
      periodTotal?: number;
      periodUnit?: string;
    };
    const weights = (text: string) =>
      text
        .trim()
        .split('\n')
        .map((l) => Number(l.slice(l.lastIndexOf(' ') + 1)));
    const counts = weights(report('-f', 'folded'));
    const periods = weights(report('-f', 'folded', '--folded-weights', 'period'));
    const sum = (a: number[]) => a.reduce((x, y) => x + y, 0);
    console.log(
      `[units] samples ${json.samples} ${json.unit}; sampleTimeMs ${json.sampleTimeMs}; periodTotal ${json.periodTotal} ${json.periodUnit}; ` +
        `folded: ${counts.length} stacks, ${sum(counts)} samples; period weights ${sum(periods)}`,
    );
    // About 1 s of CPU at 999 Hz plus node's start and exit (fewer on a busy machine): samples, not nanoseconds.
    assert.ok(json.samples >= 300 && json.samples <= 5000, `samples ${json.samples}`);
    assert.ok(Number.isInteger(json.samples));
    assert.equal(json.unit, 'samples');
    assert.equal(json.periodUnit, 'ns');
    assert.ok(json.periodTotal! > json.samples * 5e5, `periodTotal ${json.periodTotal}`);
    assert.ok(Math.abs(json.sampleTimeMs! - json.periodTotal! / 1e6) < 1e-3 * json.sampleTimeMs!, 'sampleTimeMs is periodTotal in ms');
    assert.equal(sum(counts), json.samples, 'folded weights add up to the sample count');
    assert.ok(counts.every((w) => Number.isInteger(w) && w >= 1));
    assert.ok(Math.abs(sum(periods) - json.periodTotal!) <= 1, 'period weights add up to periodTotal');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
