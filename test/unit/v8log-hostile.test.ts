import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from '../helpers/paths';
import { ProfileError, type Profile } from '../../src/core/model';
import { ImportWorker } from '../../src/core/workerClient';

// Damaged V8 logs the fuzzer found (test/fuzz): each must end in a profile or a ProfileError within 1 s.
// Imports run in the import worker so a hang fails the test instead of stalling the suite.
const dir = mkdtempSync(join(tmpdir(), 'nf-v8hostile-'));
test.after(() => rmSync(dir, { recursive: true, force: true }));
const HEAD = 'v8-version,11,3,244,8,-node.38,0\nv8-platform,linux,linux\nprofiler,begin,1000\n';

async function importWithin(name: string, text: string, ms = 1000): Promise<Profile | ProfileError> {
  const path = join(dir, name);
  writeFileSync(path, HEAD + text);
  const w = new ImportWorker(join(repoRoot, 'dist', 'worker.js'));
  let timer: NodeJS.Timeout | undefined;
  try {
    // Worker start-up is not the importer's time: allow it on top of the limit.
    const hang = new Promise<never>(
      (_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms (hang)`)), ms + 1500)),
    );
    return await Promise.race([
      w.load(path, { sourceMaps: false }).catch((e: Error) => (e instanceof ProfileError ? e : Promise.reject(e))),
      hang,
    ]);
  } finally {
    clearTimeout(timer);
    await w.terminate();
  }
}

test('v8log: a code-creation record with too few fields is skipped, not a TypeError', async () => {
  const r = await importWithin(
    'short.log',
    'code-creation,JS,10\ncode-creation,JS,10,100,0x1000,64,f /a.js:1:1,0x2000,~\ntick,0x1010,2000,0,0x0,0\n',
  );
  assert.ok(!(r instanceof Error) || r instanceof ProfileError, String(r));
});

test('v8log: an address past 2^53 (0xffffffffffffffffffffffff) does not hang the importer', async () => {
  const r = await importWithin(
    'huge-addr.log',
    'code-creation,JS,10,100,0xffffffffffffffffffffffff,64,f /a.js:1:1,0x2000,~\ntick,0x1010,2000,0,0x0,0\n',
  );
  assert.ok(r instanceof ProfileError || r.tree.count >= 1);
});

test('v8log: ticks out of time order never give a negative duration', async () => {
  const r = await importWithin(
    'order.log',
    'code-creation,JS,10,100,0x1000,64,f /a.js:1:1,0x2000,~\ntick,0x1010,9000,0,0x0,0\ntick,0x1010,2000,0,0x0,0\ntick,0x1010,3000,0,0x0,0\n',
  );
  assert.ok(!(r instanceof Error));
  assert.ok(r.meta.durationMs === null || r.meta.durationMs >= 0, `durationMs ${r.meta.durationMs}`);
});

test('v8log: a tick timestamp of 1e999 does not put Infinity into the timeline', async () => {
  const r = await importWithin(
    'inf-time.log',
    'code-creation,JS,10,100,0x1000,64,f /a.js:1:1,0x2000,~\ntick,0x1010,2000,0,0x0,0\ntick,0x1010,1e999,0,0x0,0\ntick,0x1010,3000,0,0x0,0\n',
  );
  assert.ok(!(r instanceof Error));
  for (const t of r.timeline?.times ?? []) assert.ok(Number.isFinite(t), `timeline time ${t}`);
  assert.ok(r.meta.durationMs === null || Number.isFinite(r.meta.durationMs));
});
