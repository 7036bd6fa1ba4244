import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fixUtf8, LineFields, own, parseAddress, parseJsName, unescapeField } from '../../src/core/importers/v8log/fields';
import { lineStarts, parseSourcePositions, positionsAt, Script } from '../../src/core/importers/v8log/positions';
import type { CodeInfo } from '../../src/core/importers/v8log/codeMap';
import { TickFields } from '../../src/core/importers/v8log/tickFields';

test('V8 CSV escapes: \\x2C, \\n, \\uXXXX, \\\\ and a lone trailing backslash', () => {
  assert.equal(unescapeField('a\\x2Cb'), 'a,b');
  assert.equal(unescapeField('line1\\nline2'), 'line1\nline2');
  assert.equal(unescapeField('snow\\u2603man'), 'snow\u2603man');
  assert.equal(unescapeField('w\\xf6rk'), 'wörk');
  assert.equal(unescapeField('back\\\\slash'), 'back\\slash');
  assert.equal(unescapeField('end\\'), 'end\\');
  // Not a complete escape: kept as the escaped character, not swallowed.
  assert.equal(unescapeField('\\xZZ'), 'xZZ');
  assert.equal(unescapeField('plain'), 'plain');
});

test('raw UTF-8 is decoded before escapes, so an escaped Latin-1 letter survives', () => {
  const raw = Buffer.from('caf\u00e9', 'utf8').toString('latin1');
  assert.equal(unescapeField(fixUtf8(raw)), 'café');
  assert.equal(unescapeField(fixUtf8('w\\xf6rk\\x2C1.js')), 'wörk,1.js');
});

test('JS code names: `fn file:line:col`, anonymous ones start with a space', () => {
  assert.deepEqual(parseJsName('spin /app/a.js:2:14'), { name: 'spin', file: '/app/a.js', line: 2, column: 14 });
  assert.deepEqual(parseJsName(' /app/a.js:9:3'), { name: '(anonymous)', file: '/app/a.js', line: 9, column: 3 });
  assert.deepEqual(parseJsName(' node:internal/main/run_main_module:1:1'), {
    name: '(anonymous)',
    file: 'node:internal/main/run_main_module',
    line: 1,
    column: 1,
  });
  // Names may hold spaces (getters, classes): the file is the last word.
  assert.deepEqual(parseJsName('get size /app/b.js:4:7'), { name: 'get size', file: '/app/b.js', line: 4, column: 7 });
  // Older V8s and natives: no position.
  assert.deepEqual(parseJsName('foo /app/c.js'), { name: 'foo', file: '/app/c.js', line: 0, column: 0 });
  assert.deepEqual(parseJsName('Array'), { name: 'Array', file: '', line: 0, column: 0 });
});

test('addresses: 0x hex only', () => {
  assert.equal(parseAddress('0x7f2633c83f16'), 0x7f2633c83f16);
  assert.equal(parseAddress('0X10'), 16);
  assert.ok(Number.isNaN(parseAddress('123')));
  assert.ok(Number.isNaN(parseAddress('0x')));
  assert.ok(Number.isNaN(parseAddress('')));
});

test('own() returns an equal string', () => {
  const big = 'x'.repeat(100000) + 'name-of-some-length';
  assert.equal(own(big.slice(100000)), 'name-of-some-length');
  assert.equal(own('short'), 'short');
});

test('script-source line starts are counted on the escaped text', () => {
  // "a,b\n\u2603\nend" escaped the way V8 writes it.
  const escaped = 'a\\x2Cb\\n\\u2603\\nend';
  assert.deepEqual([...lineStarts(escaped)], [0, 4, 6]);
  const s = new Script('/app/x.js', escaped);
  assert.deepEqual(s.position(0), { line: 1, column: 1 });
  assert.deepEqual(s.position(4), { line: 2, column: 1 });
  assert.deepEqual(s.position(7), { line: 3, column: 2 });
});

test('source positions: inlined callee at its offset, caller at the call site', () => {
  const outer = { type: 'JS', name: 'outer /a.js:4:16', tierMark: '*', sfi: 1 } as CodeInfo;
  const inner = { type: 'JS', name: 'inner /a.js:1:16', tierMark: '~', sfi: 2 } as CodeInfo;
  const p = parseSourcePositions(7, 'C0O52C20O21I0C40O60', 'F0O61', [inner]);
  assert.ok(p);
  assert.deepEqual(positionsAt(p, outer, 5), [{ info: outer, scriptOffset: 52 }]);
  assert.deepEqual(positionsAt(p, outer, 25), [
    { info: outer, scriptOffset: 61 },
    { info: inner, scriptOffset: 21 },
  ]);
  assert.deepEqual(positionsAt(p, outer, 40), [{ info: outer, scriptOffset: 60 }]);
  assert.equal(parseSourcePositions(7, '', '', []), null);
});

test("a tick's callers' key: the text from field 3 on (and the pc when addresses are relative), hashed and compared as bytes", () => {
  const f = new TickFields();
  const read = (line: string): Buffer => {
    const buf = Buffer.from('junk\n' + line + '\nmore', 'latin1');
    f.read(buf, 5, 5 + line.length);
    return buf;
  };
  read('tick,0x10,100,0,0x0,0,0x20,0x30');
  const a = f.key(false);
  assert.equal(a.toString('latin1'), ',0,0x0,0,0x20,0x30');
  const ha = f.keyHash(false);
  // Another pc and time, the same callers: the same key.
  read('tick,0x11,200,0,0x0,0,0x20,0x30');
  assert.equal(f.keyHash(false), ha);
  assert.ok(f.isKey(a, false));
  // One caller differs, or one more: not the key.
  read('tick,0x10,100,0,0x0,0,0x20,0x31');
  assert.ok(!f.isKey(a, false));
  read('tick,0x10,100,0,0x0,0,0x20,0x30,0x40');
  assert.ok(!f.isKey(a, false));
  // Relative addresses: the pc is part of the key.
  read('tick,0x10,100,0,0x0,0,+10,-4');
  assert.ok(f.hasRelative(2));
  const r = f.key(true);
  assert.equal(r.toString('latin1'), '0x10,0,0x0,0,+10,-4');
  read('tick,0x11,100,0,0x0,0,+10,-4');
  assert.ok(!f.isKey(r, true));
  read('tick,0x10,300,0,0x0,0,+10,-4');
  assert.ok(f.isKey(r, true));
});

test('a record read with LineFields gives what split, parseAddress and + give', () => {
  const f = new LineFields();
  const lines = [
    'code-creation,JS,10,100,0x10000,64,foo /a.js:1:1,0x5000,~',
    'code-creation,LazyCompile,0,0x2000,12,bar /b.js:2:3,0x3000,*',
    'code-creation,Builtin,2,10431,0x18c4000,768,DeoptimizationEntry_Eager',
    'code-source-info,0xb088ed0ac76,80,0,1182,C0O0C4O1182,,',
    'code-source-info,0xB088ED0AC76,80,0,1182,C0O0,F0O1,S0x10S0x20',
    'x,0x,0x1g,0xZZ,0X1F,,0x20000000000000,-0x1,12',
    'lonely',
    '',
  ];
  for (const line of lines) {
    const parts = line.split(',');
    assert.equal(f.read(line), parts.length, line);
    for (let i = 0; i < parts.length + 2; i++) {
      assert.equal(f.text(i), parts[i], `${line} text(${i})`);
      assert.ok(Object.is(f.address(i), parseAddress(parts[i])), `${line} address(${i}): ${f.address(i)} vs ${parseAddress(parts[i])}`);
    }
  }
});
