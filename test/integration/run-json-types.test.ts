// A run folder whose run.json lists processes with fields of the wrong type (issue 37, item 12): a
// repository can ship one. `node-flame report` on it reads what it can, exit 0, or says why in one line.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cli } from '../helpers/paths';

const dir = mkdtempSync(join(tmpdir(), 'nf-runjson-'));
test.after(() => rmSync(dir, { recursive: true, force: true }));

test('processes[].command as a string, an object or a number: report reads the run, exit 0, no stack', () => {
  execFileSync(process.execPath, [
    '--cpu-prof',
    `--cpu-prof-dir=${dir}`,
    '-e',
    'let s = 0; for (let i = 0; i < 3e6; i++) s += Math.sqrt(i);',
  ]);
  const file = readdirSync(dir).find((n) => n.endsWith('.cpuprofile'))!;
  const pid = Number(file.split('.')[3]);
  const at = '2026-11-25T20:00:00.000Z';
  writeFileSync(
    join(dir, 'run.json'),
    JSON.stringify({
      version: 1,
      mode: 'cpu-prof',
      command: ['node', 'x.js'],
      startedAt: at,
      durationMs: 100,
      processes: [
        { pid, ppid: 1, command: 'node x.js', exitCode: 0, startedAt: at, profiles: [file] },
        { pid: pid + 1, ppid: pid, command: { a: 1 }, exitCode: 'x', startedAt: 5, ancestors: 'no', profiles: [] },
        { pid: pid + 2, ppid: '1', command: 42, exitCode: 0, startedAt: at, profiles: 'x' },
      ],
    }),
  );
  for (const format of ['text', 'json']) {
    const r = spawnSync(process.execPath, [cli, 'report', dir, '--format', format], { encoding: 'utf8', timeout: 30000 });
    assert.equal(r.status, 0, `${format}: exit ${r.status}\n${r.stderr}`);
    assert.doesNotMatch(r.stderr, /TypeError|\n\s+at /);
    if (format === 'json') {
      const j = JSON.parse(r.stdout) as { samples: number; processes?: { pid: number; command: string }[] };
      assert.ok(j.samples > 0);
      const p = j.processes?.find((x) => x.pid === pid);
      if (p) assert.equal(typeof p.command, 'string');
    } else assert.match(r.stdout, /node x\.js|ticks|samples/);
  }
});
