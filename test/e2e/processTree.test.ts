// "Profile Node App" on a workspace with no nodeFlame.program: the pick offers the package.json `start`
// script (npm start → a CLI from node_modules/.bin → an HTTP server → a worker process), runs it with a
// load command, and the flame graph shows the worker's function; no process of the run is left.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startVSCode, repoRoot } from './helpers';

const PROFILE = 'Node Flame: Profile Node App';

test('Profile Node App: the package.json start script of a process tree, every process profiled, the worker\'s function drawn', { timeout: 600_000 }, async () => {
  const ws = mkdtempSync(join(tmpdir(), 'nf-e2e-tree-'));
  cpSync(join(repoRoot, 'examples', 'process-tree'), ws, { recursive: true });
  mkdirSync(join(ws, 'node_modules', '.bin'), { recursive: true });
  symlinkSync('../../bin/pt-serve.js', join(ws, 'node_modules', '.bin', 'pt-serve'));
  mkdirSync(join(ws, '.vscode'), { recursive: true });
  const load = 'for i in $(seq 30); do curl -s http://127.0.0.1:$NODE_FLAME_PORT/ >/dev/null; done';
  writeFileSync(join(ws, '.vscode', 'settings.json'), JSON.stringify({ 'nodeFlame.mode': 'cpu-prof', 'nodeFlame.loadCommand': load }));
  const vs = await startVSCode({ workspace: ws, name: 'process-tree' });
  let failed = true;
  try {
    await vs.waitForCommand(PROFILE);
    await vs.runCommand(PROFILE);
    await vs.quickPickWait(30_000);
    await vs.quickPickSelect('npm run start', 15_000);
    const root = join(ws, '.nodeflame');
    let dir = '';
    let info: { processes?: { pid: number; command: string[] }[]; stoppedBy?: string } = {};
    for (const deadline = Date.now() + 120_000; Date.now() < deadline && !info.stoppedBy; ) {
      await vs.page.waitForTimeout(500);
      const name = existsSync(root) ? readdirSync(root).find((n) => /^\d{8}-\d{6}-cpu-prof/.test(n) && existsSync(join(root, n, 'run.json'))) : undefined;
      if (!name) continue;
      dir = join(root, name);
      try {
        info = JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8')) as typeof info;
      } catch {
        // being written
      }
    }
    assert.equal(info.stoppedBy, 'load', JSON.stringify(info));
    assert.ok((info.processes?.length ?? 0) >= 3, JSON.stringify(info.processes?.map((p) => p.command.slice(-1))));
    const frame = await vs.webviewFrame(`body[data-profile="${dir.split('/').pop()}"][data-first-paint-ms] svg g.frame`, 120_000);
    const names = await frame.$$eval('[data-tree="top"] g.frame', (gs) => gs.map((g) => g.getAttribute('name') ?? ''));
    assert.ok(names.some((n) => /countPrimes/.test(n)), `the worker's countPrimes is drawn: ${names.slice(0, 30).join(' | ')}`);
    await vs.screenshot('process-tree');
    // VS Code itself names the workspace folder on its command line: only the fixture's processes count.
    const left = spawnSync('pgrep', ['-af', ws], { encoding: 'utf8' }).stdout.split('\n').filter((l) => /pt-serve|server\.js|worker\.js/.test(l) && !l.includes('pgrep'));
    assert.deepEqual(left, [], 'no process of the run left');
    failed = false;
  } finally {
    await vs.close({ failed });
    rmSync(ws, { recursive: true, force: true });
  }
});
