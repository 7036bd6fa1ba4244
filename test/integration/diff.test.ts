import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cli, repoRoot } from '../helpers/paths';
import { freePort } from '../helpers/net';
import { waitForPort } from '../../src/launch/ports';

const example = join(repoRoot, 'examples', 'express-auth');
const autocannon = join(repoRoot, 'node_modules', 'autocannon', 'autocannon.js');

/** Runs `app.js` in `dir` with --cpu-prof under the guide's load (a user, then /auth requests); returns the profile path. */
async function profileApp(dir: string, out: string): Promise<string> {
  const port = await freePort();
  // The launcher's preload turns SIGINT into a normal exit, which --cpu-prof needs to write its file.
  const preload = join(repoRoot, 'dist', 'preload-stop.js');
  const app = spawn(process.execPath, ['-r', preload, '--cpu-prof', `--cpu-prof-dir=${out}`, 'app.js'], {
    cwd: dir,
    env: { ...process.env, PORT: String(port), NODE_PATH: join(repoRoot, 'node_modules') },
    stdio: 'ignore',
  });
  try {
    assert.equal(await waitForPort(port, 10_000), port, 'the app listens');
    await fetch(`http://127.0.0.1:${port}/newUser?username=matt&password=password`);
    const r = spawnSync(process.execPath, [autocannon, '-c', '8', '-a', '40', `http://127.0.0.1:${port}/auth?username=matt&password=password`], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
  } finally {
    app.kill('SIGINT');
    await new Promise((res) => app.once('exit', res));
  }
  const f = readdirSync(out).find((n) => n.endsWith('.cpuprofile'));
  assert.ok(f, 'a .cpuprofile was written');
  return join(out, f);
}

test('diff of the guide app before (pbkdf2Sync) and after (async pbkdf2): pbkdf2Sync drops first', { timeout: 120_000 }, async () => {
  const ws = mkdtempSync(join(tmpdir(), 'nf-diff-'));
  try {
    // The same file, edited in place, as a user would fix it.
    copyFileSync(join(example, 'app.js'), join(ws, 'app.js'));
    const before = await profileApp(ws, join(ws, 'before'));
    copyFileSync(join(example, 'app-async.js'), join(ws, 'app.js'));
    const after = await profileApp(ws, join(ws, 'after'));
    const r = spawnSync(process.execPath, [cli, 'diff', before, after, '--format', 'json'], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    const { changes } = JSON.parse(r.stdout) as { changes: { name: string; before: number; after: number; delta: number }[] };
    assert.equal(changes[0].name, 'pbkdf2Sync', JSON.stringify(changes.slice(0, 5)));
    assert.ok(changes[0].before > 0.5, `pbkdf2Sync had most busy samples before: ${changes[0].before}`);
    assert.ok(changes[0].after < 0.05, `and about none after: ${changes[0].after}`);
    const text = spawnSync(process.execPath, [cli, 'diff', before, after], { encoding: 'utf8' });
    assert.match(text.stdout, /pbkdf2Sync/);
  } finally {
    rmSync(ws, { recursive: true, force: true });
  }
});
