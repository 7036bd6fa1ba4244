// The one expand step the viewer and the comparison share: a detail answer grafted under a pruned node
// keeps the user's zoom when it moved on meanwhile, on the same call-tree node, never on a detached copy.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ProfileBuilder, type Profile } from '../../src/core/model';
import { DiffSession } from '../../src/core/viewer/diffSession';
import { applyExpansion, attached, buildNodes, findNode, FrameTable, pathOf, SMALL, type FNode } from '../../webview/tree';

function profile(stacks: Record<string, number>): Profile {
  const b = new ProfileBuilder('folded');
  for (const [stack, w] of Object.entries(stacks))
    b.sample(
      stack.split(';').map((name) => b.frame({ name, file: '', line: 0, column: 0, category: 'app' })),
      w,
    );
  return b.build();
}

// Under `handler`: one heavy child and 400 light ones, which the host merges into one "small frames" entry.
const stacks = (heavy: number): Record<string, number> => {
  const out: Record<string, number> = { 'main;handler;json;parse': heavy };
  for (let i = 0; i < 400; i++) out[`main;handler;tiny${i}`] = 1;
  return out;
};
const strings = { smallFrames: '{0} small', root: 'all' };
const frames = new FrameTable();
const name = (n: FNode) => n.info?.name;

test('comparison: an expand answer that replaces the zoomed node moves the zoom to its copy in the detail', () => {
  const s = new DiffSession(profile(stacks(100_000)), profile(stacks(90_000)), {
    before: { label: 'a', path: '/a', format: 'folded', totalWeight: 0 },
    after: { label: 'b', path: '/b', format: 'folded', totalWeight: 0 },
  });
  const first = s.tree('after');
  assert.equal(first.type, 'diffTree');
  if (first.type !== 'diffTree') return;
  frames.add(first.frames);
  const root = buildNodes(first.data, strings, frames);
  const handler = findNode(root, (n) => name(n) === 'handler')!;
  assert.ok(
    handler.pruned && handler.children?.some((c) => c.frame === SMALL),
    'the light calls arrive merged, the handler asks for detail',
  );
  // The user clicks the handler (its detail is asked for), then zooms on json before the answer comes.
  const zoomed = findNode(handler, (n) => name(n) === 'json')!;
  const answer = s.tree('after', { node: handler.host, small: false, minWeight: 0 });
  assert.equal(answer.type, 'diffTree');
  if (answer.type !== 'diffTree' || !answer.expand) return assert.fail('an expand answer');
  frames.add(answer.frames);
  const zoom = applyExpansion(root, answer.expand, buildNodes(answer.data, strings, frames), zoomed)!;
  assert.ok(!attached(root, zoomed), 'the old json node was replaced by the detail');
  assert.equal(pathOf(zoomed)[0], zoomed, 'and no longer points into the tree (its path does not reach the root)');
  assert.notEqual(zoom, zoomed);
  assert.equal(name(zoom), 'json', 'the zoom stays on json');
  assert.equal(zoom.host, zoomed.host);
  assert.ok(attached(root, zoom), 'on the json node that is in the tree now');
  assert.deepEqual(pathOf(zoom).map(name), [undefined, 'main', 'handler', 'json']);
});

test('comparison: a zoom outside the replaced part stays where it was; a stale expand answer changes nothing', () => {
  const s = new DiffSession(profile(stacks(100_000)), profile(stacks(90_000)), {
    before: { label: 'a', path: '/a', format: 'folded', totalWeight: 0 },
    after: { label: 'b', path: '/b', format: 'folded', totalWeight: 0 },
  });
  const first = s.tree('after');
  if (first.type !== 'diffTree') return assert.fail('a tree');
  frames.add(first.frames);
  const root = buildNodes(first.data, strings, frames);
  const handler = findNode(root, (n) => name(n) === 'handler')!;
  const small = handler.children!.find((c) => c.frame === SMALL)!;
  const main = findNode(root, (n) => name(n) === 'main')!;
  const answer = s.tree('after', { node: small.host, small: true, minWeight: first.data.minWeight });
  if (answer.type !== 'diffTree' || !answer.expand) return assert.fail('an expand answer');
  frames.add(answer.frames);
  assert.equal(applyExpansion(root, answer.expand, buildNodes(answer.data, strings, frames), main), main);
  assert.ok(small.children && small.children.length > 1, 'the merged entry now holds the light calls');
  // The same answer again: its target is no longer pruned, so nothing is grafted twice.
  assert.equal(applyExpansion(root, answer.expand, buildNodes(answer.data, strings, frames), main), undefined);
});
