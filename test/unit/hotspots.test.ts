import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ProfileBuilder } from '../../src/core/model';
import { buildHotspots, callersAndCallees, functionStillAt, heatLevel, hotFunctions } from '../../src/core/model/hotspots';

const APP = '/ws/app.js';

function guideLikeProfile() {
  const b = new ProfileBuilder('v8log');
  const main = b.frame({ name: 'main', file: APP, line: 1, column: 1, category: 'app' });
  // The same handler seen at two V8 tiers is one function in the editor.
  const authI = b.frame({ name: '', file: APP, line: 24, column: 21, category: 'app', tier: 'interpreted' });
  const authT = b.frame({ name: '', file: APP, line: 24, column: 21, category: 'app', tier: 'turbofan' });
  const pbkdf2 = b.frame({ name: 'pbkdf2Sync', file: 'node:internal/crypto/pbkdf2', line: 46, column: 20, category: 'node' });
  const native = b.frame({ name: 'node::crypto::PBKDF2', file: '', line: 0, column: 0, category: 'native' });
  const newUser = b.frame({ name: '', file: APP, line: 10, column: 24, category: 'app' });
  b.sample([main, authI, pbkdf2, native], 50);
  b.sample([main, authT, pbkdf2, native], 30);
  b.sample([main, authT], 4);
  b.sample([main, newUser, pbkdf2, native], 6);
  b.sample([main], 10);
  b.lineHit(APP, 32, 0, 80);
  b.lineHit(APP, 26, 4, 4);
  b.lineHit(APP, 18, 0, 6);
  return { p: b.build(), main, authI, authT, pbkdf2, native, newUser };
}

test('functions merge across tiers, with shares of all samples', () => {
  const { p, authI, authT } = guideLikeProfile();
  const idx = buildHotspots(p);
  assert.equal(idx.weight, 100);
  const app = idx.files.get(APP)!;
  assert.deepEqual(
    app.functions.map((f) => [f.line, f.total, f.self]),
    [
      [1, 100, 10],
      [10, 6, 0],
      [24, 84, 4],
    ],
  );
  const auth = app.functions.find((f) => f.line === 24)!;
  assert.equal(auth.totalShare, 0.84);
  assert.equal(auth.selfShare, 0.04);
  assert.deepEqual(auth.frames.sort(), [authI, authT].sort());
  assert.equal(auth.frame, authI, 'the tier with more weight is the one revealed');
  assert.equal(idx.byFrame.get(authT), auth);
  assert.ok(!idx.files.has(''), 'native frames have no file entry');
  assert.deepEqual(
    hotFunctions(app, 0.07).map((f) => f.line),
    [1, 24],
  );
});

test('line heat is relative to the hottest line, inclusive hits preferred', () => {
  const { p } = guideLikeProfile();
  const lines = buildHotspots(p).files.get(APP)!.lines;
  assert.deepEqual(
    lines.map((l) => [l.line, l.share]),
    [
      [18, 0.06],
      [26, 0.04],
      [32, 0.8],
    ],
  );
  assert.equal(lines[2].intensity, 1);
  assert.ok(Math.abs(lines[1].intensity - Math.sqrt(4 / 80)) < 1e-12);
  assert.equal(heatLevel(1, 5), 5);
  assert.equal(heatLevel(0.01, 5), 1);
  assert.equal(heatLevel(0.5, 5), 3);
});

test('callers and callees with their share of the function', () => {
  const { p, main, pbkdf2, native, authI, newUser } = guideLikeProfile();
  const idx = buildHotspots(p);
  const fn = idx.byFrame.get(pbkdf2)!;
  assert.equal(fn.total, 86);
  const { callers, callees } = callersAndCallees(idx, fn);
  assert.deepEqual(
    callers.map((c) => [c.frame, c.weight]),
    [
      [authI, 80],
      [newUser, 6],
    ],
  );
  assert.deepEqual(
    callees.map((c) => [c.frame, c.weight, c.share]),
    [[native, 86, 1]],
  );
  const top = callersAndCallees(idx, idx.byFrame.get(main)!);
  assert.deepEqual(top.callers, [{ frame: -1, weight: 100, share: 1 }]);
});

test('recursion counts each sample once for callers and callees', () => {
  const b = new ProfileBuilder('folded');
  const fr = (name: string, line: number) => b.frame({ name, file: '/x/r.js', line, column: 1, category: 'app' });
  const main = fr('main', 1);
  const walk = fr('walk', 5);
  const leaf = fr('leaf', 9);
  b.sample([main, walk, walk, walk, leaf], 10);
  b.sample([main, walk, leaf], 5);
  const idx = buildHotspots(b.build());
  const w = idx.byFrame.get(walk)!;
  assert.equal(w.total, 15);
  const { callers, callees } = callersAndCallees(idx, w);
  assert.deepEqual(callers, [{ frame: main, weight: 15, share: 1 }]);
  assert.deepEqual(
    callees.map((c) => [c.frame, c.weight]),
    [
      [walk, 10],
      [leaf, 15],
    ].sort((a, b) => b[1] - a[1]),
  );
});

test('top five only, heaviest first', () => {
  const b = new ProfileBuilder('folded');
  const root = b.frame({ name: 'root', file: '/x/a.js', line: 1, column: 1, category: 'app' });
  const kids = [1, 2, 3, 4, 5, 6, 7].map((i) => b.frame({ name: `k${i}`, file: '/x/a.js', line: 10 + i, column: 1, category: 'app' }));
  kids.forEach((k, i) => b.sample([root, k], i + 1));
  const idx = buildHotspots(b.build());
  const { callees } = callersAndCallees(idx, idx.byFrame.get(root)!);
  assert.deepEqual(
    callees.map((c) => c.weight),
    [7, 6, 5, 4, 3],
  );
});

test('a named function must still start on its line', () => {
  assert.ok(functionStillAt('hashPassword', 'function hashPassword(pw) {'));
  assert.ok(functionStillAt('Auth.check', '  async check(user) {'));
  assert.ok(functionStillAt('get size', '  get size() {'));
  assert.ok(functionStillAt('(anonymous)', 'anything at all'));
  assert.ok(functionStillAt('', 'app.get("/auth", (req, res) => {'));
  assert.ok(functionStillAt('Server', '  constructor(port) {'));
  assert.ok(!functionStillAt('hashPassword', '  const x = 1;'));
  assert.ok(!functionStillAt('hash', 'function hashPassword(pw) {'), 'whole identifiers only');
  assert.ok(functionStillAt('$init', 'const $init = () => {'));
});
