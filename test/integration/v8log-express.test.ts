import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadProfile } from '../../src/core/importers';
import { cli, repoRoot } from '../helpers/paths';

const APP = join(repoRoot, 'examples/express-auth/app.js');
/** The /auth handler's first line and the line of its pbkdf2Sync call, read from the app. */
function authLines(): { handler: number; call: number } {
  const lines = readFileSync(APP, 'utf8').split('\n');
  const handler = lines.findIndex((l) => l.includes("app.get('/auth'")) + 1;
  const call = lines.findIndex((l, i) => i >= handler && l.includes('crypto.pbkdf2Sync(')) + 1;
  assert.ok(handler > 0 && call > handler);
  return { handler, call };
}

/**
 * The guide's scenario: the Express app under `node --prof`, hammered on /auth by autocannon,
 * then `node-flame report`. /proc/<pid>/maps is saved beside the log as the launcher does.
 */
test('Express /auth under load: attributed, OpenSSL on top, bottom-up through pbkdf2Sync to app.js', { timeout: 120000 }, async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'nf-express-'));
  const port = 20000 + (process.pid % 10000);
  const app = spawn(process.execPath, ['--prof', join(repoRoot, 'examples/express-auth/app.js')], {
    cwd: dir,
    env: { ...process.env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  try {
    await new Promise<void>((resolve, reject) => {
      app.stdout!.on('data', (b: Buffer) => b.toString().includes('listening') && resolve());
      app.on('exit', () => reject(new Error('app exited early')));
    });
    writeFileSync(join(dir, `proc-maps-${app.pid}.txt`), readFileSync(`/proc/${app.pid}/maps`));
    const base = `http://localhost:${port}`;
    await fetch(`${base}/newUser?username=matt&password=password`);
    const load = spawnSync(
      process.execPath,
      [join(repoRoot, 'node_modules/autocannon/autocannon.js'), '-c', '4', '-a', '40', `${base}/auth?username=matt&password=password`],
      {
        encoding: 'utf8',
        timeout: 60000,
      },
    );
    assert.equal(load.status, 0, load.stderr);
    app.kill('SIGINT');
    await new Promise((r) => app.on('exit', r));
    const log = readdirSync(dir).find((n) => n.startsWith('isolate-') && n.endsWith('.log'));
    assert.ok(log, 'no isolate log');

    const json = spawnSync(process.execPath, [cli, 'report', join(dir, log), '--format', 'json', '--top', '500'], { encoding: 'utf8' });
    assert.equal(json.status, 0, json.stderr);
    const r = JSON.parse(json.stdout) as { attributed: number; functions: { name: string; self: number }[] };
    assert.ok(r.attributed >= 0.95, `attributed ${r.attributed}`);
    const top = [...r.functions]
      .sort((a, b) => b.self - a.self)
      .slice(0, 10)
      .map((f) => f.name);
    assert.ok(
      top.some((n) => /^sha512/.test(n)),
      `no OpenSSL sha512 in top self: ${top.join(' | ')}`,
    );
    assert.ok(
      r.functions.some((f) => /CryptoJob<node::crypto::PBKDF2Traits>::Run/.test(f.name)),
      'no PBKDF2 job frame',
    );

    const text = spawnSync(process.execPath, [cli, 'report', join(dir, log), '--format', 'text'], { encoding: 'utf8' });
    assert.equal(text.status, 0, text.stderr);
    const heavy = text.stdout.slice(text.stdout.indexOf('[Bottom up (heavy) profile]'));
    const first = heavy.split('\n').findIndex((l) => /^\s+\d+\s+[\d.]+%\s+sha512/.test(l));
    assert.ok(first >= 0, 'bottom-up does not start at sha512');
    const chain = heavy
      .split('\n')
      .slice(first, first + 8)
      .join('\n');
    assert.match(chain, /PBKDF2Traits>::Run[\s\S]*pbkdf2Sync[\s\S]*express-auth\/app\.js:23/, chain);

    // Per-line heat: the handler mostly runs as Sparkplug code, whose call sites V8 does not log;
    // the pbkdf2Sync line still carries about all of the handler's samples.
    const { handler, call } = authLines();
    const p = await loadProfile(join(dir, log));
    const ids = new Set(p.frames.flatMap((f, i) => (f.file.endsWith('express-auth/app.js') && f.line === handler ? [i] : [])));
    let handlerTotal = 0;
    p.tree.forEachStack((stack, self) => {
      if (stack.some((id) => ids.has(id))) handlerTotal += self;
    });
    const file = [...p.lineHits.keys()].find((f) => f.endsWith('express-auth/app.js'));
    const onCall = (file && p.lineHits.get(file)?.get(call)?.total) || 0;
    t.diagnostic(`app.js:${call} total ${onCall} of the /auth handler's ${handlerTotal} samples`);
    assert.ok(handlerTotal >= 50, `the handler has only ${handlerTotal} samples`);
    assert.ok(
      onCall >= 0.8 * handlerTotal && onCall <= handlerTotal + 1e-9,
      `app.js:${call} has ${onCall} of the handler's ${handlerTotal} samples`,
    );
    assert.ok(
      p.warnings.some((w) => /call-site inference/i.test(w)),
      p.warnings.join('\n'),
    );
  } finally {
    if (app.exitCode === null) app.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
});
