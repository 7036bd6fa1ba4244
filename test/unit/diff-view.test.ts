// The comparison viewer's model: trees sized by either profile, per-entry shares, rows, colours; and
// the offline export's embedded profile.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ProfileBuilder, type Profile } from '../../src/core/model';
import { SMALL_FRAMES } from '../../src/core/model/prune';
import { DiffSession, reweigh } from '../../src/core/viewer/diffSession';
import { deltaTint, parseRgb } from '../../webview/diffColor';
import { embedProfile, restoreProfile, scriptSafeJson } from '../../src/core/viewer/embed';
import { ViewerSession } from '../../src/core/viewer/viewerSession';
import { previousRunFolder } from '../../src/extension/run/previousRun';

/** A profile from folded-like stacks: `main;handler;pbkdf2Sync` → weight. */
function profile(stacks: Record<string, number>): Profile {
  const b = new ProfileBuilder('folded');
  for (const [stack, w] of Object.entries(stacks)) {
    const ids = stack.split(';').map((name) =>
      b.frame({
        name,
        file: name === 'handler' ? '/app/app.js' : '',
        line: name === 'handler' ? 23 : 0,
        column: 0,
        category: name === 'handler' ? 'app' : name === 'gc' ? 'gc' : 'node',
      }),
    );
    b.sample(ids, w);
  }
  return b.build();
}

const side = (label: string, p: Profile) => ({ label, path: `/tmp/${label}`, format: p.format, totalWeight: p.tree.weight });

const before = profile({ 'main;handler;pbkdf2Sync': 80, 'main;handler;json': 10, 'main;gc': 10 });
const after = profile({ 'main;handler;pbkdf2': 5, 'main;handler;json': 60, 'main;gc': 15, 'main;newThing': 20 });

test('diff session: widths from the after profile, before/after shares per entry, removed towers only when sized by before', () => {
  const s = new DiffSession(before, after, { before: side('a', before), after: side('b', after) });
  const m = s.tree('after');
  assert.equal(m.type, 'diffTree');
  if (m.type !== 'diffTree') return;
  const frames = m.frames;
  const at = (name: string) => m.data.frame.findIndex((f) => f >= 0 && frames[f].name === name);
  assert.equal(at('pbkdf2Sync'), -1, 'a function gone after has no width when sized by after');
  const json = at('json');
  assert.ok(Math.abs(m.after[json] - 0.6) < 1e-9 && Math.abs(m.before[json] - 0.1) < 1e-9, `json: ${m.before[json]} → ${m.after[json]}`);
  assert.ok(Math.abs(m.data.total[json] - 0.6) < 1e-9, 'width is the after share');
  const handler = at('handler');
  assert.ok(Math.abs(m.before[handler] - 0.9) < 1e-9 && Math.abs(m.after[handler] - 0.65) < 1e-9);

  const b = s.tree('before');
  if (b.type !== 'diffTree') return;
  const old = b.data.frame.findIndex((f) => f >= 0 && b.frames[f].name === 'pbkdf2Sync');
  assert.ok(old > 0, 'sized by before, the removed tower is drawn');
  assert.ok(Math.abs(b.data.total[old] - 0.8) < 1e-9 && b.after[old] === 0 && Math.abs(b.before[old] - 0.8) < 1e-9);
});

test('diff session: a merged small-frames entry carries the shares of the children it stands for', () => {
  const stacks: Record<string, number> = { 'main;big': 10000 };
  for (let i = 0; i < 40; i++) stacks[`main;tiny${i}`] = 1;
  const b = profile(stacks);
  const a = profile({ ...stacks, 'main;big': 5000 });
  const s = new DiffSession(b, a, { before: side('a', b), after: side('b', a) });
  const m = s.tree('after');
  if (m.type !== 'diffTree') return assert.fail('diffTree expected');
  const small = m.data.frame.indexOf(SMALL_FRAMES);
  assert.ok(small > 0, 'the tiny frames were merged');
  const tinyB = 40 / b.tree.weight;
  const tinyA = 40 / a.tree.weight;
  assert.ok(Math.abs(m.before[small] - tinyB) < 1e-9, `before ${m.before[small]} vs ${tinyB}`);
  assert.ok(Math.abs(m.after[small] - tinyA) < 1e-9, `after ${m.after[small]} vs ${tinyA}`);
  // Expanding it brings the children back with their own shares.
  const e = s.tree('after', { node: m.data.node[small], small: true, minWeight: m.data.minWeight });
  if (e.type !== 'diffTree') return assert.fail('diffTree expected');
  const kid = e.data.frame.findIndex((f) => f >= 0 && e.frames[f].name === 'tiny3');
  assert.ok(kid > 0 && Math.abs(e.before[kid] - 1 / b.tree.weight) < 1e-12);
});

test('diff session: the change table starts with the function that lost the time, with a frame to open', () => {
  const s = new DiffSession(before, after, { before: side('a', before), after: side('b', after) });
  const init = s.init({});
  if (init.type !== 'init' || init.kind !== 'diff') return assert.fail('diff init expected');
  assert.equal(init.changes[0].name, 'pbkdf2Sync');
  assert.ok(Math.abs(init.changes[0].delta + 0.8) < 1e-9);
  const h = init.changes.find((c) => c.name === 'handler')!;
  assert.ok(h.frame >= 0 && s.frame(h.frame)?.file === '/app/app.js', 'the handler row opens app.js');
  assert.equal(init.before.label, 'a');
  const search = s.search('after', 'json', false);
  assert.ok(search.type === 'search' && Math.abs(search.fraction - 0.6) < 1e-9);
});

test('reweigh keeps node ids and only changes weights', () => {
  const t = after.tree;
  const w = reweigh(t, new Float64Array(t.count).fill(1));
  assert.equal(w.count, t.count);
  for (let i = 1; i < t.count; i++) assert.ok(w.parent[i] === t.parent[i] && w.frame[i] === t.frame[i]);
  assert.equal(w.weight, t.count);
});

test('delta colours: noise is neutral, growth positive, shrinkage negative, saturating', () => {
  assert.equal(deltaTint(0), 0);
  assert.equal(deltaTint(0.001), 0);
  assert.ok(deltaTint(0.01) > 0.2 && deltaTint(0.01) < 0.3);
  assert.ok(deltaTint(-0.05) < 0);
  assert.equal(deltaTint(0.5), 1);
  assert.equal(deltaTint(-1), -1);
  assert.equal(deltaTint(Number.NaN), 0);
  assert.deepEqual(parseRgb('rgb(1, 2, 3)'), [1, 2, 3]);
  assert.deepEqual(parseRgb('color(srgb 1 0 0.5)'), [255, 0, 127.5]);
});

test('embedded profile: safe inside a script element, and the same viewer answers from it', () => {
  const hostile = profile({ 'main;</script><script>alert(1)</script>': 3, 'main;<img src=x onerror=alert(1)>;\u2028x&y': 2 });
  const json = scriptSafeJson(embedProfile(hostile, 'x.folded', { self: 'Self' }));
  assert.doesNotMatch(json, /[<>&\u2028\u2029]/, 'no character that could end or bend the element');
  const back = restoreProfile(JSON.parse(json));
  assert.deepEqual(
    back.frames.map((f) => f.name),
    hostile.frames.map((f) => f.name),
  );
  assert.deepEqual([...back.tree.total], [...hostile.tree.total]);
  const a = new ViewerSession(hostile, 'x', 'x');
  const b = new ViewerSession(back, 'x', 'x');
  const strip = (m: object) => ({ ...m, hostMs: 0 });
  assert.deepEqual(strip(b.tree('bottom')), strip(a.tree('bottom')));
  assert.deepEqual(strip(b.setOptions({ hideNodeInternals: true })[0]), strip(a.setOptions({ hideNodeInternals: true })[0]));
  assert.throws(() => restoreProfile({ ...JSON.parse(json), parent: [-1, 5] }), /bad/);
});

test('previous run: the latest earlier run folder of the same program, not of another one', async () => {
  const root = mkdtempSync(join(tmpdir(), 'nf-prev-'));
  try {
    const run = (name: string, program: string, file: string) => {
      const dir = join(root, name);
      mkdirSync(dir);
      writeFileSync(join(dir, file), 'x');
      writeFileSync(
        join(dir, 'run.json'),
        JSON.stringify({ version: 1, mode: 'prof', command: ['/usr/bin/node', '--prof', program], cwd: '/w', profiles: [file] }),
      );
      return dir;
    };
    run('20250101-100000-prof', 'app.js', 'isolate-0x1-1-v8.log');
    run('20250101-110000-prof', '/w/other.js', 'isolate-0x2-2-v8.log');
    const current = run('20250101-120000-prof', '/w/app.js', 'isolate-0x3-3-v8.log');
    run('20250101-130000-prof', '/w/app.js', 'isolate-0x4-4-v8.log');
    assert.equal(await previousRunFolder(root, current, '/w/app.js'), join(root, '20250101-100000-prof'));
    assert.equal(await previousRunFolder(root, join(root, '20250101-100000-prof'), '/w/app.js'), undefined);
    assert.equal(await previousRunFolder(join(root, 'missing'), current, '/w/app.js'), undefined);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
