// A watch-mode app (`node --watch`) edited mid-run: its new incarnation starts a new section of the Timeline (a
// restart marker), in the live view while the app runs and in the finished run alike.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { appendFileSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { forgetLiveRun, loadLiveRun } from '../../src/launch/run/liveReader';
import { runTimeFacts, runTimeFactsOf } from '../../src/launch/run/runTimeline';
import { readProcessRecords } from '../../src/launch/run/processRecords';
import { cli } from '../helpers/paths';

const APP = `function hot() { let x = 0; for (let i = 0; i < 3e5; i++) x += Math.sqrt(i); return x; }
setInterval(hot, 5);
console.log('up', process.pid);
`;

async function until<T>(what: string, get: () => T | undefined, ms = 20_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = get();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out: ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

test('node --watch restarted by an edit: a restart marker, live and at the end', { timeout: 90_000 }, async (t) => {
  const ws = mkdtempSync(join(tmpdir(), 'nf-watch-'));
  t.after(() => rmSync(ws, { recursive: true, force: true }));
  writeFileSync(join(ws, 'app.js'), APP);
  const out = join(ws, 'runs');
  const child = spawn(
    process.execPath,
    [cli, 'profile', '--mode', 'cpu-prof', '--live', '--no-report', '--out', out, '--', process.execPath, '--watch', 'app.js'],
    { cwd: ws, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NODE_FLAME_LANG: 'en' } },
  );
  let text = '';
  child.stdout.on('data', (d) => (text += d));
  child.stderr.on('data', (d) => (text += d));
  const exited = new Promise((r) => child.on('exit', r));
  t.after(() => child.kill('SIGKILL'));
  const dir = await until('the run folder', () => (existsSync(out) ? readdirSync(out).map((n) => join(out, n))[0] : undefined));
  await until('the first incarnation', () => (/up \d+/.test(text) ? true : undefined));
  await new Promise((r) => setTimeout(r, 1500));
  appendFileSync(join(ws, 'app.js'), '// edited\n');
  const pids = await until('the second incarnation', () => {
    const r = readProcessRecords(dir).filter((p) => p.argv.some((a) => a.endsWith('app.js')));
    return r.length >= 2 && existsSync(join(dir, `live-${r[1].pid}.jsonl`)) ? r.map((p) => p.pid) : undefined;
  });
  const live = await loadLiveRun(dir, { sourceMaps: false });
  const liveFacts = await runTimeFactsOf(live.profile, dir, live.run);
  const liveRestarts = liveFacts?.markers.filter((m) => m.kind === 'restart') ?? [];
  assert.equal(liveRestarts.length, 1, JSON.stringify(liveFacts?.markers));
  assert.ok(
    pids.every((p) => live.profile.threads.some((th) => th.pid === p)),
    'both incarnations in the live view',
  );
  forgetLiveRun(dir);
  child.kill('SIGINT');
  await exited;
  const file = join(dir, readdirSync(dir).find((f) => f.endsWith('.cpuprofile'))!);
  const facts = await runTimeFacts(file);
  const restarts = facts?.markers.filter((m) => m.kind === 'restart') ?? [];
  assert.equal(restarts.length, 1, JSON.stringify(facts?.markers));
  t.diagnostic(`incarnations ${pids.join(', ')}; restart at ${restarts[0].at.toFixed(0)} ms (live: ${liveRestarts[0].at.toFixed(0)} ms)`);
});
