import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { cli } from '../helpers/paths';
import { expressExample as example, profileExpressApp } from '../helpers/expressApp';

/** `node --prof` of `app.js` in `dir` under the guide's load; the tick log moves to `out` so the next run finds its own. */
async function profileApp(dir: string, out: string): Promise<string> {
  const log = await profileExpressApp({ cwd: dir, profiler: 'prof', load: { requests: 150, connections: 8 } });
  mkdirSync(out, { recursive: true });
  const to = join(out, basename(log));
  renameSync(log, to);
  return to;
}

const diff = (cwd: string, args: string[]) => spawnSync(process.execPath, [cli, 'diff', ...args], { cwd, encoding: 'utf8' });

test(
  'diff --fail-above 5: async → sync (the guide in reverse) exits 3 with an annotation at a pbkdf2Sync line; sync → async exits 0',
  { timeout: 240_000 },
  async () => {
    const ws = mkdtempSync(join(tmpdir(), 'nf-gate-'));
    try {
      // The same file, edited in place, as a pull request would change it.
      copyFileSync(join(example, 'app-async.js'), join(ws, 'app.js'));
      const async = await profileApp(ws, join(ws, 'async'));
      copyFileSync(join(example, 'app.js'), join(ws, 'app.js'));
      const sync = await profileApp(ws, join(ws, 'sync'));
      const appLines = readFileSync(join(ws, 'app.js'), 'utf8').split('\n');

      const worse = diff(ws, [async, sync, '--fail-above', '5', '--format', 'github']);
      assert.equal(worse.status, 3, `exit ${worse.status}\n${worse.stdout}\n${worse.stderr}`);
      const notes = worse.stdout.split('\n').filter(Boolean);
      assert.ok(
        notes.every((l) => l.startsWith('::warning ')),
        worse.stdout,
      );
      const at = notes
        .map((l) => /^::warning file=([^,]+),line=(\d+),title=[^:]*::(.*)$/.exec(l))
        .find((m) => m && /^pbkdf2Sync /.test(m[3]));
      assert.ok(at, `no annotation for pbkdf2Sync:\n${worse.stdout}`);
      assert.equal(at[1], 'app.js', 'the path is relative to the folder diff runs in');
      assert.match(appLines[Number(at[2]) - 1], /pbkdf2Sync\(/, `line ${at[2]} of app.js calls pbkdf2Sync`);

      const md = diff(ws, [async, sync, '--fail-above', '5', '--format', 'markdown']);
      assert.equal(md.status, 3, md.stderr);
      assert.match(
        md.stdout,
        /^\| pbkdf2Sync \| node:internal\/crypto\/pbkdf2:\d+ \| [\d.]+% \| [\d.]+% \| \*\*\+[\d.]+\*\* ❌ \|$/m,
        md.stdout,
      );

      const better = diff(ws, [sync, async, '--fail-above', '5', '--format', 'github']);
      assert.equal(better.status, 0, `exit ${better.status}\n${better.stdout}\n${better.stderr}`);
      assert.equal(better.stdout, '', 'nothing over the limit, nothing annotated');
      assert.match(better.stderr, /no function grew by more than 5 points/);

      const bad = diff(ws, [sync, join(ws, 'app.js'), '--fail-above', '5']);
      assert.equal(bad.status, 2, 'a file that is no profile is bad input');
      assert.equal(diff(ws, [sync, async, '--fail-above', 'five']).status, 2);
    } finally {
      rmSync(ws, { recursive: true, force: true });
    }
  },
);
