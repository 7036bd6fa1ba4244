import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { asCpuProfile, cpuProfileToModel } from '../../src/core/importers/cpuprofile';
import { placeCpuTree } from '../../src/core/importers/cpuprofileTree';
import { fixtures } from '../helpers/paths';

type Node = { id: number; children?: number[]; parent?: number; callFrame: object };
type Prof = { nodes: Node[]; samples?: number[]; timeDeltas?: number[]; startTime?: number; endTime?: number };

/** The same profile with every id moved far apart, which the typed-array walk leaves to the Map walk. */
function sparse(p: Prof): Prof {
  const to = (id: number) => id * 1_000_003 + 7;
  return {
    ...p,
    nodes: p.nodes.map((n) => ({
      ...n,
      id: to(n.id),
      ...(n.children ? { children: n.children.map(to) } : {}),
      ...(n.parent !== undefined ? { parent: to(n.parent) } : {}),
    })),
    ...(p.samples ? { samples: p.samples.map(to) } : {}),
  };
}

const model = (p: Prof) => cpuProfileToModel(asCpuProfile(structuredClone(p), 'x'), 'x');

test('dense and sparse node ids walk to the same model, real and hostile trees alike', () => {
  const real = JSON.parse(readFileSync(join(fixtures, 'timeline', 'phases.cpuprofile'), 'utf8')) as Prof;
  const cf = (name: string) => ({ functionName: name, url: `/app/${name}.js`, lineNumber: 1, columnNumber: 1, scriptId: '1' });
  const hostile: Prof[] = [
    // `parent` links instead of children (older Chrome exports).
    {
      nodes: [
        { id: 1, callFrame: cf('(root)') },
        { id: 3, parent: 1, callFrame: cf('b') },
        { id: 2, parent: 1, callFrame: cf('a') },
      ],
      samples: [2, 3, 3],
    },
    // A child claimed twice (the last claim wins, the first sets its place), an id twice, a cycle, a dangling parent.
    {
      nodes: [
        { id: 1, children: [2, 3, 9], callFrame: cf('(root)') },
        { id: 2, children: [4], callFrame: cf('a') },
        { id: 3, children: [4, 2], callFrame: cf('b') },
        { id: 4, callFrame: cf('c') },
        { id: 4, callFrame: cf('c2') },
        { id: 5, children: [6], callFrame: cf('loop1') },
        { id: 6, children: [5], callFrame: cf('loop2') },
        { id: 7, parent: 99, callFrame: cf('orphan') },
      ],
      samples: [4, 2, 3, 6, 7, 42, 4],
      timeDeltas: [1, 2, 3, 4, 5, 6, 7],
    },
  ];
  for (const [k, p] of [real, ...hostile].entries()) {
    const want = model(p);
    assert.ok(want.tree.count > 2, `profile ${k} has a tree`);
    assert.deepEqual(model(sparse(p)), want, `profile ${k}`);
  }
  // The walk itself: dense ids go in arrays, sparse ones in Maps, and a tree of only a cycle has no root.
  const ids = (p: Prof) => placeCpuTree(p.nodes, () => 0)!;
  assert.ok(ids(real).dense);
  assert.equal(ids(sparse(real)).dense, undefined);
  const cycle = [
    { id: 1, children: [2] },
    { id: 2, children: [1] },
  ];
  assert.equal(
    placeCpuTree(cycle, () => 0),
    undefined,
  );
  assert.equal(
    placeCpuTree(sparse({ nodes: cycle as Node[] }).nodes, () => 0),
    undefined,
  );
});
