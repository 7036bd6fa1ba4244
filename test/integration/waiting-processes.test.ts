// `npm start` of the guide's app: npm only waits for the server, and its waiting must not drown the app.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cli, repoRoot } from '../helpers/paths';
import { expressExample } from '../helpers/expressApp';
import { freePort } from '../helpers/net';
import { runCli, runDirOf } from '../helpers/cli';
import type { JsonReport } from '../../src/core/exporters/json';

const autocannon = join(repoRoot, 'node_modules', 'autocannon', 'autocannon.js');

function report(dir: string, args: string[]): { json: JsonReport; stderr: string } {
  const r = spawnSync(process.execPath, [cli, 'report', dir, '--format', 'json', '--top', '500', ...args], {
    encoding: 'utf8',
    env: { ...process.env, NODE_FLAME_LANG: 'en' },
    maxBuffer: 64 * 1024 * 1024,
  });
  assert.equal(r.status, 0, r.stderr);
  return { json: JSON.parse(r.stdout) as JsonReport, stderr: r.stderr };
}

/** pbkdf2Sync's total share (the native hashing under it included), every tier of it. */
const pbkdf2 = (j: JsonReport) => j.functions.filter((f) => /pbkdf2Sync$/.test(f.name)).reduce((s, f) => s + f.total, 0);

for (const mode of ['prof', 'cpu-prof'] as const) {
  test(
    `npm start under load (${mode}): npm is left out of the shares, so pbkdf2Sync's share is the server's`,
    { timeout: 240_000 },
    async () => {
      const ws = mkdtempSync(join(tmpdir(), 'nf-npm-'));
      try {
        copyFileSync(join(expressExample, 'app.js'), join(ws, 'app.js'));
        copyFileSync(join(expressExample, 'package.json'), join(ws, 'package.json'));
        const port = await freePort();
        const base = `http://127.0.0.1:${port}`;
        const load = `curl -s "${base}/newUser?username=matt&password=password" >/dev/null && "${process.execPath}" "${autocannon}" -c 8 -a 80 "${base}/auth?username=matt&password=password" >/dev/null 2>&1`;
        const r = await runCli(['profile', '--mode', mode, '--port', String(port), '--load', load, '--no-report', '--', 'npm', 'start'], {
          cwd: ws,
          env: { PORT: String(port), NODE_PATH: join(repoRoot, 'node_modules') },
          killAfterMs: 200_000,
        });
        assert.equal(r.code, 0, r.stderr);
        const run = runDirOf(r);
        const whole = report(run, []);
        const npm = whole.json.processes?.find((p) => /^npm/.test(p.command));
        const server = whole.json.processes?.find((p) => /app\.js/.test(p.command));
        assert.ok(npm && server, JSON.stringify(whole.json.processes));
        assert.ok(npm.waited && npm.waited.idle >= 0.9, `npm only waited: ${JSON.stringify(npm)}`);
        assert.equal(server.waited, undefined, 'the server did the work');
        assert.match(whole.stderr, /left out of the shares: npm start \(pid \d+, \d+%\) only waited/);
        const alone = report(run, ['--pid', String(server.pid)]);
        const [inRun, inServer] = [pbkdf2(whole.json), pbkdf2(alone.json)];
        assert.ok(inServer > 0.2, `pbkdf2Sync is the server's hot spot: ${inServer}`);
        assert.ok(Math.abs(inRun - inServer) <= 0.1, `run ${inRun} vs server alone ${inServer}: within 10 points`);
        // One flag away: with npm kept, its idle dilutes the share again.
        const all = report(run, ['--all-processes']);
        assert.ok(pbkdf2(all.json) < inRun, `--all-processes keeps npm: ${pbkdf2(all.json)} < ${inRun}`);
        assert.ok(!whole.json.findings.some((f) => f.rule === 'mostly-idle'), JSON.stringify(whole.json.findings));
        console.log(
          `${mode}: pbkdf2Sync total ${(inRun * 100).toFixed(1)} % in the run, ${(inServer * 100).toFixed(1)} % in the server alone, ${(pbkdf2(all.json) * 100).toFixed(1)} % with npm kept; npm idle ${(npm.waited.idle * 100).toFixed(1)} %`,
        );
      } finally {
        rmSync(ws, { recursive: true, force: true });
      }
    },
  );
}
