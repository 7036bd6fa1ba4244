import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { v8logImporter } from '../../src/core/importers/v8log';
import { functionStats, ProfileError, type Profile } from '../../src/core/model';
import { fixtures } from '../helpers/paths';

// test/fixtures/v8log/prof.log: a real `node --prof` run of `wörk,1.js`, trimmed by trim.mjs (see make.sh).
const FIXTURE = join(fixtures, 'v8log', 'prof.log');
const text = readFileSync(FIXTURE, 'latin1');
const tickLines = text.split('\n').filter((l) => l.startsWith('tick,'));

function withFile(content: string, fn: (path: string) => Promise<void>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'nf-v8unit-'));
  const path = join(dir, 'some.log');
  writeFileSync(path, content, 'latin1');
  return fn(path).finally(() => rmSync(dir, { recursive: true, force: true }));
}

function selfOf(p: Profile, name: string): number {
  return functionStats(p.tree, p.frames.length)
    .filter((s) => p.frames[s.frame].name === name)
    .reduce((a, s) => a + s.self, 0);
}

test('fixture: every tick counted, the hot function found under its escaped file name', async () => {
  const p = await v8logImporter.load(FIXTURE, {});
  assert.equal(p.tree.weight, tickLines.length);
  assert.ok(selfOf(p, 'spin') > tickLines.length / 3, `spin self ${selfOf(p, 'spin')} of ${tickLines.length}`);
  const spin = p.frames.find((f) => f.name === 'spin')!;
  assert.match(spin.file, /\/wörk,1\.js$/, 'the \\xf6 and \\x2C escapes in the path');
  assert.equal(spin.line, 2);
  assert.equal(p.meta.v8Version, '11.3.244.8');
  assert.equal(p.meta.nodeVersion, undefined, 'a tick log names V8, not the Node.js release');
  assert.equal(p.meta.intervalMs, 1);
  assert.equal(p.timeline?.nodes.length, tickLines.length, 'one timeline entry per tick');
  assert.ok(
    p.warnings.every((w) => !/cut off|not made for/.test(w)),
    p.warnings.join('\n'),
  );
});

test('a log cut in the middle of a line: the ticks before it, and a warning naming the record', async () => {
  const lastTick = text.lastIndexOf('\ntick,');
  const keepTicks = text
    .slice(0, lastTick)
    .split('\n')
    .filter((l) => l.startsWith('tick,')).length;
  // Cut five characters into the last tick line.
  await withFile(text.slice(0, lastTick + 6), async (path) => {
    const p = await v8logImporter.load(path, {});
    assert.equal(p.tree.weight, keepTicks);
    assert.ok(
      p.warnings.some((w) => w.includes('some.log') && w.includes('"tick"') && w.includes('cut off')),
      p.warnings.join('\n'),
    );
  });
});

test('a log from a V8 this reader was not made for: warned, unreadable records skipped and named', async () => {
  const lines = text.split('\n');
  lines[0] = 'v8-version,99,1,0,0,,0';
  // A made-up future layout for a few ticks: no timestamp where one is expected.
  const changed = lines.map((l, i) => (l.startsWith('tick,') && i % 3 === 0 ? l.replace(/^tick,(0x[0-9a-f]+),\d+,/, 'tick,$1,x,') : l));
  const bad = changed.filter((l, i) => l !== lines[i] && l.startsWith('tick,')).length;
  assert.ok(bad > 0);
  await withFile(changed.join('\n'), async (path) => {
    const p = await v8logImporter.load(path, {});
    assert.equal(p.tree.weight, tickLines.length - bad);
    assert.ok(
      p.warnings.some((w) => w.includes('V8 99.1.0.0') && w.includes('not made for')),
      p.warnings.join('\n'),
    );
    assert.ok(
      p.warnings.some((w) => w.includes(`skipped ${bad} malformed "tick" records`)),
      p.warnings.join('\n'),
    );
  });
});

test('garbage is a ProfileError, not a crash or an empty profile', async () => {
  await withFile('hello,world\nthis is not a log\n\x00\x01\x02', async (path) => {
    await assert.rejects(v8logImporter.load(path, {}), (e: unknown) => e instanceof ProfileError && /not a V8 tick log/.test(e.message));
  });
  await withFile('', async (path) => {
    await assert.rejects(v8logImporter.load(path, {}), ProfileError);
  });
});

test('sniff: only a leading v8-version record', () => {
  assert.ok(v8logImporter.sniff(Buffer.from(text.slice(0, 100), 'latin1'), FIXTURE));
  assert.ok(!v8logImporter.sniff(Buffer.from('{"nodes":[]}'), 'x.cpuprofile'));
});
