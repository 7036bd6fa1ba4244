// The request labels of a run's samples (core/model/requests.ts) on the merged two-process run of
// test/fixtures/process-tree-timeline: a request's span labels only its own process's samples, the route filter keeps
// exactly those, and the summary's figures follow; the path fallback collapses ids.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mergeProfiles, type Profile } from '../../src/core/model';
import { requestsSummary, restrictToRoutes, sampleRequests, type RequestLog } from '../../src/core/model/requests';
import { collapseIds, NO_REQUEST } from '../../src/core/model/requestRoutes';
import { treeRunParts } from '../helpers/runTimeline';

async function merged(): Promise<{ profile: Profile; pids: number[] }> {
  const parts = (await treeRunParts()).map((p) => ({ ...p, startMs: p.profile.meta.startTime }));
  return { profile: mergeProfiles(parts, { ...parts[0].profile.meta }), pids: parts.map((p) => p.pid!) };
}

test('a request labels the samples of its own process within its span, and the route filter keeps exactly them', async () => {
  const { profile, pids } = await merged();
  const tl = profile.timeline!;
  const span = { from: tl.times[Math.floor(tl.times.length / 4)], to: tl.times[Math.floor(tl.times.length / 2)] };
  const [a, b] = pids;
  const log: RequestLog = {
    requests: [
      { pid: a, method: 'GET', route: '/auth', status: 200, start: span.from, end: span.to },
      { pid: b, method: 'GET', route: '/user/:id', status: 200, start: span.to, end: span.to + 5 },
    ],
    changes: [
      { pid: a, times: Float64Array.from([span.from, span.to]), req: Int32Array.from([0, -1]) },
      { pid: b, times: Float64Array.from([span.to, span.to + 5]), req: Int32Array.from([1, -1]) },
    ],
  };
  const p: Profile = { ...profile, requests: log };
  const labels = sampleRequests(p);
  const pidOf = (i: number) => {
    for (let n = tl.nodes[i]; n > 0; n = p.tree.parent[n])
      if (p.tree.parent[n] === 0) return p.threads.find((t) => `thread ${t.name}` === p.frames[p.tree.frame[n]].name)?.pid;
    return undefined;
  };
  let auth = 0;
  for (let i = 0; i < labels.length; i++) {
    const inSpan = tl.times[i] >= span.from && tl.times[i] < span.to && pidOf(i) === a;
    assert.equal(labels[i] === 0, inSpan, `sample ${i} at ${tl.times[i]} of pid ${pidOf(i)}`);
    if (inSpan) auth++;
  }
  assert.ok(auth > 10, `${auth} samples of /auth`);
  const only = restrictToRoutes(p, ['GET /auth']);
  assert.equal(only.timeline!.times.length, auth);
  // The kept samples are /auth's, in order, each on the node of the same call path in the route's tree.
  const path = (q: Profile, n: number) => {
    const names: string[] = [];
    for (; n > 0; n = q.tree.parent[n]) names.push(q.frames[q.tree.frame[n]].name);
    return names.join('<');
  };
  const keptAt = [...labels.keys()].filter((i) => labels[i] === 0);
  assert.deepEqual(
    [...only.timeline!.times],
    keptAt.map((i) => tl.times[i]),
  );
  keptAt.forEach((i, o) => assert.equal(path(only, only.timeline!.nodes[o]), path(p, tl.nodes[i]), `sample ${i}`));
  assert.equal(only.tree.weight, auth);
  assert.deepEqual(only.meta.routes, ['GET /auth']);
  const rest = restrictToRoutes(p, [NO_REQUEST, 'GET /user/:id']);
  assert.equal(rest.tree.weight + auth, p.tree.weight, 'the two choices split the samples');
  const s = requestsSummary(p)!;
  const row = s.routes.find((r) => r.key === 'GET /auth')!;
  assert.equal(row.count, 1);
  assert.equal(row.samples, auth);
  assert.equal(row.p50, Math.round((span.to - span.from) * 1000) / 1000);
  assert.equal(s.routes.at(-1)!.key, NO_REQUEST, 'the samples of no request come last');
  assert.equal(s.slowest[0].key, 'GET /auth');
});

test('a path without a route pattern has its ids collapsed', () => {
  assert.equal(collapseIds('/user/42/posts/7'), '/user/:id/posts/:id');
  assert.equal(collapseIds('/item/0b2f6c1a-58c2-4f0e-9b7a-0d5c3e1f2a44'), '/item/:id');
  assert.equal(collapseIds('/obj/507f1f77bcf86cd799439011'), '/obj/:id');
  assert.equal(collapseIds('/v2/users/deadline'), '/v2/users/deadline');
  assert.equal(collapseIds(''), '/');
});
