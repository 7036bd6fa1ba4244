import { test } from 'node:test';
import assert from 'node:assert/strict';
import { heaviestLeaf, hotTarget, scrollToFrame, scrollToShow } from '../../webview/hotPath';
import { SMALL, type FNode } from '../../webview/tree';

function node(name: string, value: number, children: FNode[] = [], frame = 1): FNode {
  const n: FNode = {
    name,
    value,
    self: value - children.reduce((a, c) => a + c.value, 0),
    frame,
    host: 0,
    merged: 0,
    pruned: false,
    children: children.length ? children : undefined,
    depth: 0,
  };
  for (const c of children) c.up = n;
  return n;
}

test('the heaviest path: the heaviest child at each level down to a leaf; merged small frames are no path', () => {
  const sha = node('sha512_block_data_order_avx2', 60);
  const small = node('… 40 small frames', 30, [], SMALL);
  const root = node('all', 100, [node('startup', 10), node('pbkdf2Sync', 90, [node('PBKDF2', 60, [sha]), small])]);
  assert.equal(heaviestLeaf(root), sha);
  // From a zoomed frame the path starts there.
  assert.equal(heaviestLeaf(root.children![0]), root.children![0]);
  // A frame whose only child is a merged entry is itself the leaf.
  const lone = node('x', 5, [node('… 3 small frames', 5, [], SMALL)]);
  assert.equal(heaviestLeaf(lone), lone);
  // A mostly waiting app: (idle) is the widest child of the root, but the time the CPU spent is elsewhere.
  const idle = { ...node('(idle)', 70, [], 7), info: { name: '(idle)', category: 'idle' } as never };
  const busy = node('pbkdf2Sync', 30);
  assert.equal(heaviestLeaf(node('all', 100, [idle, busy])), busy);
  // A run's processes: npm waited (its level mostly its idle child) while the worker ran: the worker's path.
  const idleOf = (v: number) => ({ ...node('(idle)', v, [], 7), info: { name: '(idle)', category: 'idle' } as never });
  const npmStart = node('Module._load', 3);
  const npm = node('thread npm run start', 40, [idleOf(37), npmStart]);
  const countPrimes = node('countPrimes', 20);
  const worker = node('thread worker.js', 30, [idleOf(8), countPrimes]);
  assert.equal(heaviestLeaf(node('all', 70, [npm, worker])), countPrimes);
});

test('the first view aims at the heaviest leaf, or at a frame off that path with more self time', () => {
  // perf lost OpenSSL's callers: the heaviest column ends on a cheap leaf, the SHA-512 that burns most hangs near the root.
  const cleanse = node('OPENSSL_cleanse', 5);
  const column = node('pbkdf2Sync', 60, [node('PBKDF2', 40, [node('HMAC_Final', 25, [cleanse])]), node('sha512 (column)', 20)]);
  const orphan = node('sha512_block_data_order_avx2', 35);
  const root = node('all', 100, [column, node('[unknown]', 40, [orphan])]);
  assert.equal(heaviestLeaf(root), cleanse);
  assert.equal(hotTarget(root), orphan);
  // Where the path's leaf holds the most self time, it is the target; idle and merged frames are never one.
  const sha = node('sha512_block_data_order_avx2', 60);
  const idle = { ...node('(idle)', 300, [], 7), info: { name: '(idle)', category: 'idle' } as never };
  const withIdle = node('all', 400, [idle, node('pbkdf2Sync', 100, [sha, node('… 9 small frames', 40, [], SMALL)])]);
  assert.equal(hotTarget(withIdle), sha);
});

test('the scroll that shows the leaf: flame hangs from the bottom, icicle from the top; the root side kept when it fits', () => {
  const cell = 18;
  // A 1,584 px flame in a 300 px box, leaf at depth 34: the leaf's row (top at 1584 - 35*18 = 954) one row below the top.
  assert.equal(scrollToShow(34, { rootAtTop: false, cell, height: 1584, box: 300 }), 1584 - 36 * cell);
  // Short enough to see root and leaf together: scrolled to the bottom (the root).
  assert.equal(scrollToShow(10, { rootAtTop: false, cell, height: 1584, box: 300 }), 1584 - 300);
  // A drawing shorter than the box never scrolls.
  assert.equal(scrollToShow(5, { rootAtTop: false, cell, height: 200, box: 300 }), 0);
  assert.equal(scrollToShow(5, { rootAtTop: true, cell, height: 200, box: 300 }), 0);
  // Icicle: the leaf's row ends one row above the box's bottom edge; shallow leaves leave the root in view.
  assert.equal(scrollToShow(34, { rootAtTop: true, cell, height: 1584, box: 300 }), 36 * cell - 300);
  assert.equal(scrollToShow(10, { rootAtTop: true, cell, height: 1584, box: 300 }), 0);
  // Never past the end.
  assert.equal(scrollToShow(100, { rootAtTop: true, cell, height: 1584, box: 300 }), 1584 - 300);
});

test('the scroll that shows a zoomed frame with its parent row above (icicle) or below (flame)', () => {
  const cell = 18;
  assert.equal(scrollToFrame(0, { rootAtTop: true, cell, height: 1584, box: 300 }), 0);
  assert.equal(scrollToFrame(20, { rootAtTop: true, cell, height: 1584, box: 300 }), 19 * cell);
  assert.equal(scrollToFrame(0, { rootAtTop: false, cell, height: 1584, box: 300 }), 1584 - 300);
  assert.equal(scrollToFrame(20, { rootAtTop: false, cell, height: 1584, box: 300 }), 1584 - 300 - 19 * cell);
});
