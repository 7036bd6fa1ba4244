import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cli, fixtures } from '../helpers/paths';

// The CLI starts from V8's code cache (src/cli/codeCache.ts). What it must never do: change an answer, fail a command
// for a bad or foreign cache file, or keep rewriting a cache V8 would accept.
test('the CLI runs from a code cache: same answers, one file per bundle, a bad file replaced', { timeout: 120_000 }, () => {
  const home = mkdtempSync(join(tmpdir(), 'nf-codecache-'));
  const dir = join(home, 'code');
  const profile = join(fixtures, 'fuzz', 'seed.cpuprofile');
  const log = join(fixtures, 'fuzz', 'seed-v8.log');
  const report = (file: string, cache = home) => {
    const r = spawnSync(process.execPath, [cli, 'report', file, '-f', 'json'], {
      encoding: 'utf8',
      env: { ...process.env, NODE_FLAME_CACHE: cache },
    });
    assert.equal(r.status, 0, r.stderr);
    return r.stdout;
  };
  const files = () => readdirSync(dir).filter((f) => f.endsWith('.bin'));
  try {
    const plain = report(profile, 'off');
    assert.equal(report(profile), plain, 'the first run (writing the cache) answers the same');
    assert.equal(files().length, 1);
    const file = join(dir, files()[0]);
    assert.equal(statSync(dir).mode & 0o777, 0o700, 'the folder is the user’s own');
    assert.equal(statSync(file).mode & 0o777, 0o600);
    // Stamped in the past: a run that found V8 rejecting the file would write it again (now).
    const past = new Date(Date.now() - 3_600_000);
    utimesSync(file, past, past);
    assert.equal(report(profile), plain, 'a run from the cache answers the same');
    assert.ok(statSync(file).mtimeMs < past.getTime() + 1000, 'V8 took the cache (it was not written again)');

    // A tick log grows the young generation (a V8 flag, which V8 tags its cache with): the cache it writes must
    // still be taken by the next start.
    rmSync(file);
    const logPlain = report(log, 'off');
    assert.equal(report(log), logPlain);
    utimesSync(file, past, past);
    assert.equal(report(profile), plain);
    assert.ok(statSync(file).mtimeMs < past.getTime() + 1000, 'the cache a tick log wrote is taken by the next start');

    // Garbage where the cache was: the command runs as without one, and a good cache replaces it.
    writeFileSync(file, Buffer.alloc(4096, 7));
    utimesSync(file, past, past);
    assert.equal(report(profile), plain, 'a damaged cache changes nothing');
    assert.ok(statSync(file).mtimeMs > past.getTime() + 1000, 'and is written again');
    assert.ok(statSync(file).size > 4096);

    // Caches of other builds: the four newest are kept.
    for (let i = 0; i < 6; i++) {
      const old = join(dir, `${'0'.repeat(39)}${i}.bin`);
      writeFileSync(old, 'x');
      utimesSync(old, new Date(past.getTime() - i * 1000), new Date(past.getTime() - i * 1000));
    }
    rmSync(file);
    assert.equal(report(profile), plain);
    assert.equal(files().length, 4, `kept: ${files().join(', ')}`);
    assert.ok(files().includes(file.slice(dir.length + 1)), 'the new one among them');
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
});
