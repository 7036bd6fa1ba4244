import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CallTree, functionStats, ProfileBuilder, type Frame, type Profile } from '../../src/core/model';
import {
  applyTransform,
  applyTransforms,
  inPackage,
  packageOf,
  safeRegex,
  sandwich,
  UnsafeRegexError,
  type Transform,
} from '../../src/core/model/transforms';
import { applyViewOptions } from '../../src/core/model/viewOptions';

/**
 * The tree of views.test (weights in samples, 1 ms each):
 *   main;a;b 30 · main;a;c 10 · main;d 60 · main;a;a;b 5 (direct recursion) · main;a;d;a 7 (a → d → a)
 */
function sample(): Profile {
  const b = new ProfileBuilder('folded');
  const id: Record<string, number> = {};
  for (const n of ['main', 'a', 'b', 'c', 'd']) id[n] = b.frame({ name: n, file: `/app/${n}.js`, line: 1, column: 1, category: 'app' });
  const add = (s: string, w: number) =>
    b.sample(
      s.split(';').map((n) => id[n]),
      w,
      w,
    );
  add('main;a;b', 30);
  add('main;a;c', 10);
  add('main;d', 60);
  add('main;a;a;b', 5);
  add('main;a;d;a', 7);
  return b.build();
}

/**
 * Every node as `path total`, sorted: the exact tree, including nodes without samples of their own (a
 * transform must not leave empty ones behind), and every self weight in `selfTime` too.
 */
function dump(t: CallTree, frames: readonly Frame[]): string[] {
  const out: string[] = [];
  for (let i = 1; i < t.count; i++) {
    out.push(
      `${t
        .stack(i)
        .map((f) => frames[f].name)
        .join(';')} ${t.total[i]}`,
    );
    assert.equal(t.selfTime[i], t.self[i], 'times follow the weights');
  }
  return out.sort();
}

const fn = (name: string) => ({ name });
const run = (t: Transform | Transform[], p = sample()) => dump(applyTransforms(p, Array.isArray(t) ? t : [t]).tree, p.frames);

test('focus on a function: every stack starts at its outermost call, samples without it are gone', () => {
  assert.deepEqual(run({ kind: 'focus-function', fn: fn('a') }), ['a 52', 'a;a 5', 'a;a;b 5', 'a;b 30', 'a;c 10', 'a;d 7', 'a;d;a 7']);
  // d is called from main and from a: both call sites merge into one root.
  assert.deepEqual(run({ kind: 'focus-function', fn: fn('d') }), ['d 67', 'd;a 7']);
  // The root's own samples (no frame at all) have no d either.
  const p = sample();
  p.tree.addSelf(0, 3, 3);
  assert.equal(applyTransforms(p, [{ kind: 'focus-function', fn: fn('d') }]).tree.weight, 67);
});

test('focus on a function that ran in two tiers makes one root of the first frame', () => {
  const b = new ProfileBuilder('v8log');
  const main = b.frame({ name: 'main', file: '/app/m.js', line: 1, column: 1, category: 'app' });
  const slow = b.frame({ name: 'work', file: '/app/w.js', line: 4, column: 3, category: 'app', tier: 'interpreted' });
  const fast = b.frame({ name: 'work', file: '/app/w.js', line: 4, column: 3, category: 'app', tier: 'turbofan' });
  const other = b.frame({ name: 'work', file: '/app/other.js', line: 9, column: 1, category: 'app' });
  b.sample([main, slow], 2);
  b.sample([main, fast], 5);
  b.sample([main, other], 1);
  const p = b.build();
  const t = applyTransforms(p, [{ kind: 'focus-function', fn: { name: 'work', file: '/app/w.js', line: 4 } }]).tree;
  assert.deepEqual(
    t.children(0).map((c) => [t.frame[c], t.total[c]]),
    [[slow, 7]],
  );
  // By name alone (the CLI): two different functions named `work`, each its own root.
  const byName = applyTransforms(p, [{ kind: 'focus-function', fn: { name: 'work' } }]);
  assert.deepEqual(
    byName.tree.children(0).map((c) => [byName.tree.frame[c], byName.tree.total[c]]),
    [
      [slow, 7],
      [other, 1],
    ],
  );
  const stat = functionStats(byName.tree, p.frames.length).find((s) => s.frame === slow)!;
  assert.equal(stat.total / byName.tree.weight, 7 / 8);
});

test('focus on a subtree keeps one call path from the root; an inverted path keeps stacks ending with it', () => {
  assert.deepEqual(run({ kind: 'focus-subtree', path: [fn('main'), fn('a')] }), [
    'a 52',
    'a;a 5',
    'a;a;b 5',
    'a;b 30',
    'a;c 10',
    'a;d 7',
    'a;d;a 7',
  ]);
  assert.deepEqual(run({ kind: 'focus-subtree', path: [fn('main'), fn('a'), fn('a')] }), ['a 5', 'a;b 5']);
  assert.deepEqual(run({ kind: 'focus-subtree', path: [fn('a')] }), [], 'a path must start at the root');
  // Bottom-up path b ← a: the samples whose stacks end in a;b, each now ending at a.
  assert.deepEqual(run({ kind: 'focus-subtree', path: [fn('b'), fn('a')], inverted: true }), ['main 35', 'main;a 35', 'main;a;a 5']);
  assert.deepEqual(run({ kind: 'focus-subtree', path: [fn('a')], inverted: true }), ['main 7', 'main;a 7', 'main;a;d 7', 'main;a;d;a 7']);
});

test('merge a function: its frames go, its time stays with the caller', () => {
  assert.deepEqual(run({ kind: 'merge-function', fn: fn('a') }), ['main 112', 'main;b 35', 'main;c 10', 'main;d 67']);
  assert.deepEqual(run({ kind: 'merge-function', fn: fn('main') }), [
    'a 52',
    'a;a 5',
    'a;a;b 5',
    'a;b 30',
    'a;c 10',
    'a;d 7',
    'a;d;a 7',
    'd 60',
  ]);
});

test('collapse recursion folds direct and indirect calls into the outermost one', () => {
  assert.deepEqual(run({ kind: 'collapse-recursion', fn: fn('a') }), ['main 112', 'main;a 52', 'main;a;b 35', 'main;a;c 10', 'main;d 60']);
  assert.deepEqual(run({ kind: 'collapse-recursion', fn: fn('d') }), [
    'main 112',
    'main;a 52',
    'main;a;a 5',
    'main;a;a;b 5',
    'main;a;b 30',
    'main;a;c 10',
    'main;a;d 7',
    'main;a;d;a 7',
    'main;d 60',
  ]);
});

test('drop samples with a function anywhere on the stack', () => {
  assert.deepEqual(run({ kind: 'drop-function', fn: fn('d') }), [
    'main 45',
    'main;a 45',
    'main;a;a 5',
    'main;a;a;b 5',
    'main;a;b 30',
    'main;a;c 10',
  ]);
  assert.deepEqual(run({ kind: 'drop-function', fn: fn('main') }), []);
});

test('exclude by regex removes matching frames, time to the caller', () => {
  assert.deepEqual(run({ kind: 'exclude', regex: '^[BC]$' }), [
    'main 112',
    'main;a 52',
    'main;a;a 5',
    'main;a;d 7',
    'main;a;d;a 7',
    'main;d 60',
  ]);
  assert.throws(() => run({ kind: 'exclude', regex: '(a+)+$' }), UnsafeRegexError);
});

test('transforms apply in order', () => {
  assert.deepEqual(
    run([
      { kind: 'focus-function', fn: fn('a') },
      { kind: 'merge-function', fn: fn('d') },
    ]),
    ['a 52', 'a;a 12', 'a;a;b 5', 'a;b 30', 'a;c 10'],
  );
  // Merging a first removes the recursion that focusing on d then finds nothing of.
  assert.deepEqual(
    run([
      { kind: 'merge-function', fn: fn('a') },
      { kind: 'focus-function', fn: fn('d') },
    ]),
    ['d 67'],
  );
  assert.deepEqual(
    run([
      { kind: 'drop-function', fn: fn('d') },
      { kind: 'collapse-recursion', fn: fn('a') },
    ]),
    ['main 45', 'main;a 45', 'main;a;b 35', 'main;a;c 10'],
  );
});

test('merge calls into a package or folder: a run of its frames folds into the first', () => {
  const b = new ProfileBuilder('cpuprofile');
  const fr = (name: string, file: string) => b.frame({ name, file, line: 1, column: 1, category: 'app' });
  const server = fr('server', '/srv/app.js');
  const handle = fr('handle', '/srv/node_modules/express/lib/router/layer.js');
  const next = fr('next', '/srv/node_modules/express/lib/router/index.js');
  const auth = fr('auth', '/srv/app.js');
  const send = fr('send', '/srv/node_modules/express/lib/response.js');
  const pbkdf2 = fr('pbkdf2Sync', 'node:internal/crypto/pbkdf2');
  const validate = fr('validate', 'node:internal/validators');
  b.sample([server, handle, next, handle, next, auth, pbkdf2, validate], 4, 4);
  b.sample([server, handle, next, auth, send, next], 2, 2);
  b.sample([server, handle, next], 1, 1);
  const p = b.build();
  assert.deepEqual(run({ kind: 'merge-package', package: 'node_modules/express' }, p), [
    'server 7',
    'server;handle 7',
    'server;handle;auth 6',
    'server;handle;auth;pbkdf2Sync 4',
    'server;handle;auth;pbkdf2Sync;validate 4',
    'server;handle;auth;send 2',
  ]);
  assert.deepEqual(
    run({ kind: 'merge-package', package: 'node:internal' }, p).filter((l) => l.includes('pbkdf2')),
    ['server;handle;next;handle;next;auth;pbkdf2Sync 4'],
  );
  // A folder takes in everything below it, its node_modules too; node:internal is not in it.
  assert.deepEqual(run({ kind: 'merge-package', package: '/srv' }, p), ['server 7', 'server;pbkdf2Sync 4', 'server;pbkdf2Sync;validate 4']);
  assert.equal(packageOf(p.frames[next]), 'node_modules/express');
  assert.equal(packageOf(p.frames[pbkdf2]), 'node:internal');
  assert.equal(packageOf(p.frames[auth]), '/srv');
  assert.ok(
    inPackage({ name: 'x', file: 'internal/crypto/pbkdf2.js', line: 1, column: 1, category: 'node' }, 'node:internal'),
    'old logs name core files internal/…',
  );
  assert.ok(
    inPackage(
      { name: 'x', file: 'C:\\srv\\node_modules\\@scope\\pkg\\i.js', line: 1, column: 1, category: 'dependency' },
      'node_modules/@scope/pkg',
    ),
  );
  assert.ok(!inPackage(p.frames[auth], 'node_modules/express'));
});

test('the view options still apply on a transformed profile (merge by function over a focused tree)', () => {
  const p = applyTransforms(sample(), [{ kind: 'focus-function', fn: fn('a') }]);
  const v = applyViewOptions(p, { mergeBy: 'function' });
  assert.equal(v.tree.weight, 52);
  assert.equal(p.threads[0].samples, 52);
});

test('a perf sample count follows the kept share; a timeline whose samples are all dropped goes', () => {
  const p = sample();
  p.meta.sampleCount = 1120;
  // One timed sample, in main;d (60 samples weigh that node; the timeline needs only its node id).
  const d = Array.from({ length: p.tree.count }, (_, i) => i).find(
    (i) => p.frames[p.tree.frame[i]]?.name === 'd' && p.tree.self[i] === 60,
  )!;
  p.timeline = { nodes: new Uint32Array([d]), times: new Float64Array([0]) };
  const t = applyTransforms(p, [{ kind: 'drop-function', fn: fn('d') }]);
  assert.equal(t.meta.sampleCount, 450);
  assert.equal(t.timeline, undefined);
  assert.deepEqual(
    Array.from(applyTransforms(p, [{ kind: 'merge-function', fn: fn('d') }]).timeline!.times),
    [0],
    'merged: the sample stays',
  );
  assert.equal(p.tree.weight, 112, 'the profile itself is left as it was');
  assert.equal(applyTransform(p.tree, p.frames, { kind: 'merge-function', fn: fn('zzz') }).weight, 112);
});

test('safeRegex accepts ordinary patterns and refuses the ones that backtrack without end', () => {
  for (const ok of ['handle|next', '^(foo)?bar$', 'a{2,3}b', '^node:internal/', '[(+*]+', '\\(anonymous\\)', '(?:get|set)[A-Z]', 'x+?y'])
    assert.doesNotThrow(() => safeRegex(ok), ok);
  const reasons: Record<string, string> = {
    '(a+)+': 'nested',
    '(a|a)*': 'nested',
    '(.*a){3}': 'nested',
    '((ab)*)+': 'nested',
    '(a)\\1': 'backreference',
    '(': 'syntax',
    ['x'.repeat(201)]: 'length',
  };
  for (const [bad, reason] of Object.entries(reasons)) {
    assert.throws(
      () => safeRegex(bad),
      (e: unknown) => e instanceof UnsafeRegexError && e.reason === reason,
      bad,
    );
  }
  assert.ok(safeRegex('HANDLE').test('handle'), 'case-insensitive');
});

test('sandwich: callers as a bottom-up tree of stacks cut at the outermost call, callees as the focused tree', () => {
  const p = sample();
  const d = sandwich(p.tree, p.frames, fn('d'));
  assert.deepEqual(dump(d.callers, p.frames), ['d 67', 'd;a 7', 'd;a;main 7', 'd;main 60']);
  assert.deepEqual(dump(d.callees, p.frames), ['d 67', 'd;a 7']);
  const a = sandwich(p.tree, p.frames, fn('a'));
  assert.deepEqual(dump(a.callers, p.frames), ['a 52', 'a;main 52'], 'recursion is counted once, at the outermost call');
});
