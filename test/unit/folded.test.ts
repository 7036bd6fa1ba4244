import { test } from 'node:test';
import assert from 'node:assert/strict';
import { foldedImporter, parseFoldedFrame } from '../../src/core/importers/folded';
import { cpuprofileImporter } from '../../src/core/importers/cpuprofile';
import { sniffFormat } from '../../src/core/importers';
import { toFolded } from '../../src/core/exporters/folded';
import { functionStats, ProfileError } from '../../src/core/model';
import { tempFiles } from '../helpers/tempFiles';

const file = tempFiles('nf-folded-', '.txt');

test('frame annotations and locations', () => {
  const f = (s: string) => parseFoldedFrame(s)!.frame;
  assert.deepEqual(f('do_syscall_64_[k]'), { name: 'do_syscall_64', file: '', line: 0, column: 0, category: 'kernel' });
  const jit = f('LazyCompile:*fib /app/src/x.js:3:10_[j]');
  assert.deepEqual([jit.name, jit.file, jit.line, jit.column, jit.category, jit.tier], ['fib', '/app/src/x.js', 3, 10, 'app', 'turbofan']);
  const inl = f('handle /app/node_modules/@scope/pkg/lib/a.js:7_[i]');
  assert.deepEqual([inl.name, inl.line, inl.column, inl.category, inl.pkg], ['handle', 7, 0, 'dependency', '@scope/pkg']);
  const paren = f('fib (C:\\work\\my app\\x.js:12:4)');
  assert.deepEqual([paren.name, paren.file, paren.line, paren.column], ['fib', 'C:\\work\\my app\\x.js', 12, 4]);
  const url = f('tick file:///C:/a%20b/x.js:5');
  assert.deepEqual([url.file, url.line], ['C:\\a b\\x.js', 5]);
  assert.equal(f('readFile node:fs:400:3').category, 'node');
  assert.deepEqual([f('memcpy (/usr/lib/libc.so.6)').category, f('memcpy (/usr/lib/libc.so.6)').lib], ['shared-lib', '/usr/lib/libc.so.6']);
  assert.equal(f('node::Start (/usr/local/bin/node)').category, 'native');
  assert.equal(f('Builtin: ArrayPrototypePush').category, 'v8');
  assert.equal(f('[unknown]').category, 'unaccounted');
  assert.equal(f('(garbage collector)').category, 'gc');
  assert.equal(f('waker_[w]').name, 'waker');
  assert.equal(parseFoldedFrame('(root)'), null);
});

test('the issue example: weights, self and total', async () => {
  const p = await foldedImporter.load(file('main;a;b 30\nmain;a;c 10\nmain;d 60\n'), {});
  assert.equal(p.format, 'folded');
  assert.equal(p.tree.weight, 100);
  assert.equal(p.meta.durationMs, null);
  const by = new Map(functionStats(p.tree, p.frames.length).map((s) => [p.frames[s.frame].name, s]));
  assert.equal(by.get('d')!.self, 60);
  assert.equal(by.get('a')!.total, 40);
  assert.equal(by.get('a')!.self, 0);
  assert.equal(by.get('main')!.total, 100);
});

test('float weights, CRLF, comments and stray lines (skipped with one warning)', async () => {
  const p = await foldedImporter.load(file('# made by hand\r\nmain;x 1.5\r\nnot a stack line\r\nmain;x 2.25\r\n\r\nmain 0.25\r\n'), {});
  assert.equal(p.tree.weight, 4);
  assert.equal(p.warnings.length, 1);
  assert.match(p.warnings[0], /1 lines/);
});

test('perf-style collapses: plain names next to marked frames are native code', async () => {
  const p = await foldedImporter.load(file('node;uv_run;JS:*work /srv/app.js:4:1_[j];memcpy_[k] 9\nnode;main 1\n'), {});
  const cat = Object.fromEntries(p.frames.map((f) => [f.name, f.category]));
  assert.deepEqual(cat, { node: 'native', uv_run: 'native', work: 'app', memcpy: 'kernel', main: 'native' });
});

test('sniffing: folded text yes, JSON, V8 logs and binary no', async () => {
  assert.equal(foldedImporter.sniff(Buffer.from('a;b 1\nc 2\n'), 'x'), true);
  assert.equal(foldedImporter.sniff(Buffer.from('{"nodes":[]}'), 'x'), false);
  assert.equal(foldedImporter.sniff(Buffer.from('v8-version,11,3,244,8,0,0\ntick,0x1,2,0,0x0,6\n'), 'x'), false);
  assert.equal(foldedImporter.sniff(Buffer.from([0x50, 0x45, 0, 1, 2, 3, 0xff, 0xfe]), 'x'), false);
  assert.equal(cpuprofileImporter.sniff(Buffer.from('main;a 1\n'), 'x'), false);
  // 10-byte lines: the 64 KiB head ends inside the two-byte ü of its last line.
  const head = Buffer.from('main;\u00fc 1\n'.repeat(7000)).subarray(0, 65536);
  assert.equal(head.toString('utf8').endsWith('\ufffd'), true);
  assert.equal(foldedImporter.sniff(head, 'x'), true);
  // The registry picks folded from the content, whatever the name says.
  assert.equal((await sniffFormat(file('main;a 3\n'))).format, 'folded');
});

test('a file with no stack lines is a ProfileError', async () => {
  await assert.rejects(
    foldedImporter.load(file('hello\nworld\n'), {}),
    (e) => e instanceof ProfileError && /no folded stack lines/.test(e.message),
  );
});

test('folded export reads back to the same stacks and weights', async () => {
  const src = 'main;a;b 30\nmain;a;c 10\nmain;d 60\nmain;k (/usr/lib/libz.so.1) 4\nmain;run /app/x.js:3:7;sys_read_[k] 2.5\n';
  const p = await foldedImporter.load(file(src), {});
  const out = toFolded(p);
  const again = await foldedImporter.load(file(out), {});
  assert.equal(toFolded(again), out);
  assert.deepEqual(out.trim().split('\n').sort(), src.trim().split('\n').sort());
});
