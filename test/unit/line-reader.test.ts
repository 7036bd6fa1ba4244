// The importers' one line reader: the same lines as readline at every break style and across its 1 MiB reads, the
// cut-off tail of a log kept apart, utf8 names whole, and a slow line handler awaited in order.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { forEachLine, readLines } from '../../src/core/importers/lines';
import { tempFiles } from '../helpers/tempFiles';

const file = tempFiles('nf-lines-', '.txt');

async function viaReadline(path: string): Promise<string[]> {
  const out: string[] = [];
  for await (const l of createInterface({ input: createReadStream(path, { encoding: 'latin1' }), crlfDelay: Infinity })) out.push(l);
  return out;
}

test('lines split where readline splits them, across the reader’s chunk boundaries', async () => {
  const breaks = ['\n', '\r\n', '\r'];
  const parts: string[] = [];
  // Long lines put `\r` and `\r\n` astride the 1 MiB reads.
  for (let i = 0; i < 3000; i++) parts.push('x'.repeat((i * 7919) % 2000) + `#${i}` + breaks[i % 3]);
  parts.push('last line without a break');
  const path = file(parts.join(''));
  const got: string[] = [];
  const res = await readLines(path, (l) => void got.push(l));
  assert.deepEqual(got, await viaReadline(path));
  assert.equal(got.length, 3001);
  assert.equal(res.partialTail, '');
});

test("a log's unfinished last record is returned as its tail, not read as a line", async () => {
  const path = file('v8-version,11\ntick,1,2\ncode-creation,LazyCompile,0,12');
  const got: string[] = [];
  const res = await readLines(path, (l) => void got.push(l), { lastLine: 'tail' });
  assert.deepEqual(got, ['v8-version,11', 'tick,1,2']);
  assert.equal(res.partialTail, 'code-creation,LazyCompile,0,12');
});

test('utf8 lines decode whole; byte lines stay valid after the call; async handlers run in order', async () => {
  const path = file('400a 10 LazyCompile:~größe /tmp/ü.js:1\r\n400b 10 名前\n');
  const names: string[] = [];
  await readLines(path, (l) => void names.push(l.split(' ').slice(2).join(' ')), { encoding: 'utf8' });
  assert.deepEqual(names, ['LazyCompile:~größe /tmp/ü.js:1', '名前']);

  const kept: [Buffer, number, number][] = [];
  const order: number[] = [];
  await forEachLine(path, async (buf, s, e) => {
    kept.push([buf, s, e]);
    await new Promise((r) => setTimeout(r, 5));
    order.push(kept.length);
  });
  assert.deepEqual(order, [1, 2]);
  assert.deepEqual(
    kept.map(([b, s, e]) => b.toString('utf8', s, e)),
    ['400a 10 LazyCompile:~größe /tmp/ü.js:1', '400b 10 名前'],
  );
});

test('an aborted read stops with "cancelled"', async () => {
  const path = file('a\n'.repeat(10));
  const ac = new AbortController();
  ac.abort();
  await assert.rejects(
    readLines(path, () => undefined, { signal: ac.signal }),
    /cancelled/,
  );
});
