import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ProfileBuilder } from '../../src/core/model';
import { ViewerSession } from '../../src/core/viewer/viewerSession';
import { accessibleText, accessibleTitle } from '../../src/core/viewer/accessibleText';
import { answer, type ViewerHost } from '../../src/core/viewer/answer';
import { accessibleDiffText } from '../../src/core/viewer/accessibleDiffText';
import { DiffSession } from '../../src/core/viewer/diffSession';

/** main;a;b 60 · main;a;c 30 · main;d 8 · main;e 2 (e is under the tree's 5 % cut). */
function session(): ViewerSession {
  const b = new ProfileBuilder('folded');
  const id: Record<string, number> = {};
  for (const n of ['main', 'a', 'b', 'c', 'd', 'e'])
    id[n] = b.frame({ name: n, file: `/app/${n}.js`, line: 3, column: 0, category: 'app' });
  const add = (s: string, w: number) =>
    b.sample(
      s.split(';').map((n) => id[n]),
      w,
    );
  add('main;a;b', 60);
  add('main;a;c', 30);
  add('main;d', 8);
  add('main;e', 2);
  const s = new ViewerSession(b.build(), 'x.folded', '/x.folded');
  s.findings = [
    { rule: 'blocking-sync', severity: 'warning', share: 0.6, message: 'b blocks the loop', file: '/app/b.js', line: 3, frame: id.b },
  ];
  return s;
}

test('the Accessible View: the hot branches as an indented tree with total and self shares, the findings, the top functions', () => {
  const lines = accessibleText(session()).split('\n');
  const at = (prefix: string) => lines.findIndex((l) => l.startsWith(prefix));
  assert.equal(lines[0], 'Node Flame, accessible view of x.folded');
  assert.match(lines[1], /100 samples/);
  const main = at('main /app/main.js:3: total 100.0 %, self 0.0 %');
  assert.ok(main > 0, lines.join('\n'));
  // Children under their parent, one more indent each, heaviest first; e (2 %) is left out.
  assert.equal(lines[main + 1], '  a /app/a.js:3: total 90.0 %, self 0.0 %');
  assert.equal(lines[main + 2], '    b /app/b.js:3: total 60.0 %, self 60.0 %');
  assert.equal(lines[main + 3], '    c /app/c.js:3: total 30.0 %, self 30.0 %');
  assert.equal(lines[main + 4], '  d /app/d.js:3: total 8.0 %, self 8.0 %');
  assert.ok(!lines.some((l) => l.includes('/app/e.js') && l.startsWith(' ')), 'a 2 % branch is not in the tree');
  assert.ok(lines.includes('1. warning blocking-sync /app/b.js:3 (60.0 %): b blocks the loop'), lines.join('\n'));
  const top = at('Top functions');
  assert.deepEqual(lines.slice(top + 1, top + 3), [
    '1. b /app/b.js:3: self 60.0 %, total 60.0 %',
    '2. c /app/c.js:3: self 30.0 %, total 30.0 %',
  ]);
  assert.ok(
    lines.slice(top).some((l) => l.includes('e /app/e.js:3: self 2.0 %')),
    'the top functions list every function with self weight',
  );
});

test('the Accessible View follows the session: a Focus transform, the bottom-up tree; the offline page gets the text to show', async () => {
  const s = session();
  s.setTransforms([{ kind: 'focus-function', fn: { name: 'a', file: '/app/a.js', line: 3 } }]);
  const text = accessibleText(s);
  assert.match(text, /1 call-tree transforms applied/);
  assert.match(text, /^a \/app\/a\.js:3: total 100\.0 %/m, 'a is the root once focused on');
  assert.doesNotMatch(text, /^ *d \/app\/d\.js/m);
  const bottom = accessibleText(s, 'bottom');
  assert.match(bottom, /^b \/app\/b\.js:3: 66\.7 % of the samples\n {2}a \/app\/a\.js:3: 66\.7 % of the samples\nc /m, bottom);

  // A host that opens the text (the editor) gets it; one that cannot (the offline page) has it sent back to the page.
  const base: ViewerHost = { openSource: () => undefined, timeFacts: () => undefined };
  let shown: [string, string] | undefined;
  const editor: ViewerHost = { ...base, showText: async (title, t) => void (shown = [title, t]) };
  assert.deepEqual(await answer(s, { type: 'accessibleView', tree: 'top' }, editor), []);
  assert.deepEqual(shown, [accessibleTitle(s), text]);
  const [reply] = await answer(s, { type: 'accessibleView', tree: 'top' }, base);
  assert.deepEqual(reply, { type: 'accessibleText', title: 'x.folded (accessible view)', text });
});

test('the comparison’s Accessible View: both profiles, the biggest changes with both shares', () => {
  const b = new ProfileBuilder('folded');
  const a = new ProfileBuilder('folded');
  const frame = (p: ProfileBuilder, n: string) => p.frame({ name: n, file: `/app/${n}.js`, line: 7, column: 0, category: 'app' });
  b.sample([frame(b, 'main'), frame(b, 'hash')], 80);
  b.sample([frame(b, 'main'), frame(b, 'json')], 20);
  a.sample([frame(a, 'main'), frame(a, 'hash')], 10);
  a.sample([frame(a, 'main'), frame(a, 'json')], 30);
  const side = (label: string, weight: number) => ({ label, path: `/tmp/${label}`, format: 'folded', totalWeight: weight });
  const { title, text } = accessibleDiffText(new DiffSession(b.build(), a.build(), { before: side('old', 100), after: side('new', 40) }));
  assert.equal(title, 'old → new (accessible view)');
  const lines = text.split('\n');
  assert.deepEqual(lines.slice(0, 3), [
    'Node Flame, accessible view of the comparison old → new',
    'Before: old (folded, 100 samples)',
    'After: new (folded, 40 samples)',
  ]);
  assert.ok(lines.includes('1. json /app/json.js:7: 20.0 % → 75.0 % (+55.0 points)'), text);
  assert.ok(lines.includes('2. hash /app/hash.js:7: 80.0 % → 25.0 % (−55.0 points)'), text);
});
