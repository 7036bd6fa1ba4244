import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { asCpuProfile, cpuProfileToModel, readJson } from '../../src/core/importers/cpuprofile';
import { CpuNodeTable, repairNode, type CpuNode } from '../../src/core/importers/cpuprofileNodes';
import { readCpuProfileStream } from '../../src/core/importers/cpuprofileStream';
import type { Profile } from '../../src/core/model';
import { fixtures } from '../helpers/paths';
import { tempFiles } from '../helpers/tempFiles';

const file = tempFiles('nf-cpuprof-scan-', '.cpuprofile');

async function viaJsonParse(path: string): Promise<Profile> {
  return cpuProfileToModel(asCpuProfile(await readJson(path), path), path);
}

async function viaStream(path: string, chunkSize?: number): Promise<Profile> {
  return cpuProfileToModel(asCpuProfile(await readCpuProfileStream(path, { chunkSize }), path), path);
}

/** The table the general way builds: each node JSON.parse'd and repaired. */
function parsedTable(nodesText: string): CpuNodeTable {
  const nodes = JSON.parse(nodesText) as CpuNode[];
  for (const n of nodes) assert.ok(repairNode(n));
  return CpuNodeTable.of(nodes);
}

function tableFields(t: CpuNodeTable) {
  const { length, count, childCount, frames, tickNodes, ticks, bad } = t;
  const upTo = <A extends Float64Array | Int32Array>(a: A, n: number) => [...a.subarray(0, n)];
  return {
    ...{ length, count, childCount, frames, tickNodes, ticks, bad },
    ids: upTo(t.ids, count),
    parents: upTo(t.parents, count),
    childStart: upTo(t.childStart, count + 1),
    children: upTo(t.children, childCount),
    frameOf: upTo(t.frameOf, count),
    hitCounts: upTo(t.hitCounts, count),
  };
}

test("V8's plain nodes are read from the bytes into the table JSON.parse and repairNode give", () => {
  const text = readFileSync(join(fixtures, 'timeline', 'phases.cpuprofile'), 'utf8');
  const nodes = JSON.stringify((JSON.parse(text) as { nodes: CpuNode[] }).nodes);
  const b = Buffer.from(`${nodes},`);
  const t = new CpuNodeTable();
  // Every node read, up to the array's `]`.
  assert.equal(t.scan(b, 1), nodes.length - 1);
  assert.deepEqual(tableFields(t), tableFields(parsedTable(nodes)));
  assert.ok(t.count > 10 && t.tickNodes.length > 0);
});

test('nodes the scanner does not read plainly go the general way: the same Profile as JSON.parse at any chunk size', async () => {
  const cf = (name: string, extra = '') =>
    `{"functionName":"${name}","scriptId":"3","url":"file:///tmp/a.js","lineNumber":4,"columnNumber":2${extra}}`;
  const nodes = [
    `{"id":1,"callFrame":{"functionName":"(root)","scriptId":"0","url":"","lineNumber":-1,"columnNumber":-1},"hitCount":0,"children":[2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,21,22,23,24,25,26,27]}`,
    `{"id":2,"callFrame":${cf('a}b')},"hitCount":1,"children":[]}`,
    // The same call frame as node 2 in other bytes; then one whose first `}` is in a string and one that ends with it.
    `{"id":3,"callFrame":{"scriptId":"3","functionName":"a}b","url":"file:///tmp/a.js","lineNumber":4,"columnNumber":2},"hitCount":2}`,
    `{"id":4,"callFrame":${cf('a}b')},"hitCount":3,"children":[],"positionTicks":[{"line":5,"ticks":2},{"line":0,"ticks":1},{"line":6,"ticks":-1}]}`,
    `{"id":5,"callFrame":${cf('q\\"}\\\\')},"hitCount":4,"deoptReason":"not \\"plain\\""}`,
    `{"id":6,"callFrame":${cf('caf\\u00e9 日本')},"hitCount":5,"deoptReason":"Insufficient type feedback"}`,
    `{"id":7,"callFrame":${cf('n', ',"lineNumber":7.5')},"hitCount":-3}`,
    `{"id":8,"callFrame":${cf('n')},"hitCount":-0,"children":[-0]}`,
    `{"id":9,"callFrame":${cf('dup')},"hitCount":1,"hitCount":6}`,
    `{"id":10,"callFrame":${cf('x')},"hitCount":1.0,"extra":{"a":[1]}}`,
    `{"id":11, "callFrame":${cf('ws')},"hitCount":1}`,
    `{"id":12,"callFrame":{"functionName":"s","scriptId":9,"url":"","lineNumber":1,"columnNumber":1},"hitCount":1,"children":[1e3,"13",null]}`,
    `{"id":13,"callFrame":${cf('p')},"hitCount":1,"parent":1}`,
    `{"id":14,"callFrame":${cf('big')},"hitCount":123456789012345,"children":[]}`,
    `{"id":15,"callFrame":${cf('big2')},"hitCount":1234567890123456}`,
    `{"id":16,"callFrame":${cf('lead')},"hitCount":01}`.replace('01', '1'),
    `{"id":17,"callFrame":${cf('t')},"positionTicks":[{"line":3,"ticks":1,"x":"]}"}]}`,
    `{"id":18,"callFrame":${cf('(anonymous)')},"hitCount":2,"positionTicks":null}`,
    `{"id":19,"callFrame":${cf('(anonymous)')},"hitCount":2,"children":[20],"id":20}`,
    `{"id":20,"callFrame":${cf('u')},"positionTicks":[{"line":3,"ticks":1.5},{"line":-0,"ticks":1}]}`,
    `{"id":21,"callFrame":${cf('v')},"positionTicks":[{"ticks":2,"line":9},{"line":10,"ticks":1}],"children":[]}`,
    `{"id":22,"callFrame":${cf('w')},"positionTicks":[]}`,
    // Call frames alike but for their last bytes, as a file's anonymous functions are: told apart, word or byte.
    ...[2, 3, 23, 20, 2].map(
      (col, k) => `{"id":${23 + k},"callFrame":${cf('(anonymous)').replace('"columnNumber":2', `"columnNumber":${col}`)},"hitCount":1}`,
    ),
  ];
  const samples = Array.from({ length: 270 }, (_, k) => 1 + (k % 27));
  const text = `{"nodes":[${nodes.join(',')}],"startTime":0,"endTime":1000,"samples":[${samples}],"timeDeltas":[${samples.map(() => 5)}]}`;
  const f = file(text);
  const want = await viaJsonParse(f);
  assert.ok(want.frames.some((x) => x.name === 'q"}\\'));
  assert.ok(want.frames.some((x) => x.name === 'café 日本'));
  const anonymous = want.frames.filter((x) => x.name === '(anonymous)' && x.line === 5).map((x) => x.column);
  assert.deepEqual(
    anonymous.sort((a, b) => a - b),
    [3, 4, 21, 24],
  );
  for (const size of [1, 5, 17, 64, 200, 1 << 20]) assert.deepEqual(await viaStream(f, size), want, `chunks of ${size}`);
});

test('a node with a bad call frame or no id: an error or the same Profile, as with JSON.parse', async () => {
  for (const node of [
    '{"id":1,"callFrame":{"a":}}',
    '{"id":1}',
    '{"callFrame":{}}',
    '{"id":1,"callFrame":[]}',
    '{"id":1,"callFrame":{"a":"\u0001"}}',
  ]) {
    const f = file(`{"nodes":[{"id":2,"callFrame":{}},${node}],"samples":[1,2],"timeDeltas":[1,1]}`);
    const want = await viaJsonParse(f).catch((e: unknown) => e);
    const got = await viaStream(f).catch((e: unknown) => e);
    if (want instanceof Error) assert.ok(got instanceof Error, node);
    else assert.deepEqual(got, want, node);
  }
});
