import { test } from 'node:test';
import assert from 'node:assert/strict';
import { streamJson } from '../../src/core/jsonStream';

function streamed(v: unknown, chunk?: number): { text: string; pieces: number } {
  const pieces: string[] = [];
  streamJson(v, (p) => pieces.push(p), chunk);
  return { text: pieces.join(''), pieces: pieces.length };
}

test('streamJson writes what JSON.stringify writes, in pieces', () => {
  const samples: unknown[] = [
    null,
    0,
    -1.5e-7,
    NaN,
    'a "quoted" \\ line\nbreak \u2028 é',
    [],
    {},
    [1, undefined, () => 1, null, 'x'],
    { a: 1, b: undefined, c: () => 2, d: [{ e: 'f' }, []], 'key "q"': true, n: null },
    { callFrame: { functionName: '', scriptId: '0', url: '', lineNumber: -1, columnNumber: -1 }, selfSize: 0, id: 1, children: [] },
  ];
  for (const v of samples) assert.equal(streamed(v).text, JSON.stringify(v), JSON.stringify(v));
  // A heap profile's shape, deep (V8's sampling keeps stacks up to 128 frames; a tree of them nests twice as deep).
  type N = { callFrame: { functionName: string; url: string; lineNumber: number }; selfSize: number; id: number; children: N[] };
  const head: N = { callFrame: { functionName: '(root)', url: '', lineNumber: -1 }, selfSize: 0, id: 1, children: [] };
  let n = head;
  for (let i = 2; i < 2_000; i++) {
    const c: N = { callFrame: { functionName: `f${i}`, url: `/app/x${i % 7}.js`, lineNumber: i }, selfSize: i * 8, id: i, children: [] };
    n.children.push(c, { ...c, id: -i, children: [] });
    n = c;
  }
  const profile = { head, samples: [{ size: 8, nodeId: 2, ordinal: 1 }], nodeFlame: { samples: 'allocated' } };
  const out = streamed(profile, 4096);
  assert.ok(out.pieces > 100, `${out.pieces} pieces: the text is handed out as it is made, not at the end`);
  assert.equal(out.text, JSON.stringify(profile));
});
