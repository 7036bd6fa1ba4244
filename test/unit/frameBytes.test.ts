import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FrameBytes, objectEnd } from '../../src/core/importers/frameBytes';
import { plain, plainInt } from '../../src/core/importers/numberList';

const frame = (name: string, line: number) =>
  JSON.stringify({ functionName: name, scriptId: '12', url: 'file:///app/server.js', lineNumber: line, columnNumber: 4 });

test('a call frame is found by its bytes once remembered, wherever it lies and whatever follows', () => {
  const known = new FrameBytes();
  const a = frame('handle', 10);
  const b = Buffer.from(`{"callFrame":${a},"x":1}`);
  const at = b.indexOf('{', 1);
  known.use(b);
  assert.equal(known.find(b, at, b.length), -1);
  const to = objectEnd(b, at, b.length);
  assert.equal(to, at + Buffer.byteLength(a));
  known.remember(b, at, to, 7);
  const c = Buffer.from(`[${a}]`);
  known.use(c);
  assert.equal(known.find(c, 1, c.length), 7);
  assert.equal(known.end, 1 + Buffer.byteLength(a));
  // Another line of the same function is another frame; so is the frame cut short by the end of the bytes.
  const d = Buffer.from(frame('handle', 11));
  known.use(d);
  assert.equal(known.find(d, 0, d.length), -1);
  known.use(c);
  assert.equal(known.find(c, 1, c.length - 3), -1);
});

test('frames too short to hash are not remembered, and many frames all stay found', () => {
  const known = new FrameBytes();
  const short = Buffer.from('{"functionName":"f","url":""}');
  known.use(short);
  assert.equal(known.find(short, 0, short.length), -1);
  known.remember(short, 0, short.length, 1);
  assert.equal(known.find(short, 0, short.length), -1);
  const texts = Array.from({ length: 3000 }, (_, k) => Buffer.from(frame(`f${k % 50}`, k)));
  texts.forEach((t, k) => {
    known.use(t);
    assert.equal(known.find(t, 0, t.length), -1);
    known.remember(t, 0, t.length, k);
  });
  texts.forEach((t, k) => {
    known.use(t);
    assert.equal(known.find(t, 0, t.length), k);
  });
});

test('objectEnd: a flat object only, strings and their escapes stepped over', () => {
  const b = Buffer.from('{"a":"}\\"{","b":2},');
  assert.equal(objectEnd(b, 0, b.length), b.length - 1);
  assert.equal(objectEnd(Buffer.from('{"a":{}}'), 0, 8), -1);
  assert.equal(objectEnd(Buffer.from('{"a":"x'), 0, 7), -1);
});

test('plainInt reads what JSON.parse would, and leaves anything else to it', () => {
  for (const text of ['0', '-0', '7', '-12', '123456789012345', '2147483648']) {
    const b = Buffer.from(`${text},`);
    assert.equal(plainInt(b, 0, b.length), text.length, text);
    assert.ok(Object.is(plain.value, JSON.parse(text)), text);
  }
  for (const end of [',', ']', '}', ' ', '\n']) assert.equal(plainInt(Buffer.from(`5${end}`), 0, 2), 1);
  for (const text of ['01,', '1.5,', '1e3,', '-,', 'x,', '1234567890123456,', '12', '1a,', '- 1,'])
    assert.equal(plainInt(Buffer.from(text), 0, text.length), -1, text);
});

test('read: a frame seen before by its bytes, a new one by what parse gives it, a refused one not remembered', () => {
  const known = new FrameBytes();
  const a = frame('handle', 10);
  const b = Buffer.from(`[${a},${a},{"functionName":"a-frame-too-broken-to-parse","x":[1]}]`);
  known.use(b);
  const parsed: string[] = [];
  const parse = (text: string) => (parsed.push(text), text.includes('handle') ? 3 : -1);
  assert.equal(known.read(b, 1, b.length, parse), 3);
  assert.equal(known.end, 1 + Buffer.byteLength(a));
  assert.equal(known.read(b, known.end + 1, b.length, parse), 3);
  assert.deepEqual(parsed, [a], 'the second copy is found by its bytes, not parsed');
  assert.equal(known.read(b, b.lastIndexOf('{'), b.length, parse), -1, 'no flat object');
});
