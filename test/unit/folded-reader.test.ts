// The folded importer reads bytes: lines split as readline splits them, the previous line's frames reused,
// parts looked up by their bytes. These tests pin what a faster reader must not change.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { foldedImporter } from '../../src/core/importers/folded';
import { toFolded } from '../../src/core/exporters/folded';
import { FrameTable } from '../../src/core/model';
import { tempFiles } from '../helpers/tempFiles';

const file = tempFiles('nf-folded-reader-', '.txt');

/** Weight per stack as the folded format means it: `;`-separated names, empty parts and `(root)` left out; no stack, no line. */
function expected(lines: string[]): string[] {
  const sum = new Map<string, number>();
  for (const l of lines) {
    const at = l.lastIndexOf(' ');
    if (at === 0) continue;
    const key =
      l
        .slice(0, at)
        .split(';')
        .filter((p) => p && p !== '(root)')
        .join(';') || '[unknown]';
    sum.set(key, (sum.get(key) ?? 0) + Number(l.slice(at + 1)));
  }
  return [...sum].map(([k, w]) => `${k} ${w}`).sort();
}

const stacks = (text: string) => text.trim().split('\n').sort();

test('sorted lines share their first frames with the line before: same tree as in any other order', async () => {
  let seed = 7;
  const rand = (k: number) => Math.floor(((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648) * k);
  // Names that are prefixes of each other (b, bc, bcd), empty parts, (root) and trailing `;`.
  const names = ['a', 'b', 'bc', 'bcd', 'c', '', '(root)', 'main', 'x.y'];
  const lines: string[] = [];
  for (let i = 0; i < 4000; i++) {
    const depth = 1 + rand(8);
    const parts = Array.from({ length: depth }, () => names[rand(names.length)]);
    lines.push(`${parts.join(';')} ${1 + rand(5)}`);
  }
  // Edge pairs next to each other once sorted: a line that is a prefix of the next, the same line twice,
  // a line whose last part only starts like the next one's.
  lines.push('main;a;b 3', 'main;a;b 4', 'main;a 2', 'main;a;bc 5', 'main;a; 1', 'main;a;b;c 6', 'main 1');
  const sorted = [...lines].sort();
  const a = await foldedImporter.load(file(`${sorted.join('\n')}\n`), {});
  const b = await foldedImporter.load(file(`${lines.join('\n')}\n`), {});
  assert.deepEqual(stacks(toFolded(a)), expected(lines));
  assert.deepEqual(stacks(toFolded(b)), expected(lines));
  assert.equal(a.tree.count, b.tree.count, 'no node made twice');
  assert.equal(a.frames.length, b.frames.length);
});

test('line breaks as readline has them: \\n, \\r\\n, a lone \\r; lines across and longer than one 1 MiB read', async () => {
  const p = await foldedImporter.load(file('main;a 1\r\nmain;b 2\rmain;c 3\nmain;d 4\r\r\nmain;e 5'), {});
  assert.deepEqual(stacks(toFolded(p)), ['main;a 1', 'main;b 2', 'main;c 3', 'main;d 4', 'main;e 5']);

  // A name that straddles the first read's end, and one line of 200 000 frames (about 1.4 MB).
  const pad = `pad;${'p'.repeat((1 << 20) - 20)} 1\n`;
  const deep = Array.from({ length: 200_000 }, (_, i) => `d${i % 7}`).join(';');
  const q = await foldedImporter.load(file(`${pad}main;straddling_name 2\n${deep} 3\nmain;after 4\n`), {});
  const by = new Map(stacks(toFolded(q)).map((l) => [l.slice(0, l.lastIndexOf(' ')), Number(l.slice(l.lastIndexOf(' ') + 1))]));
  assert.equal(by.get('main;straddling_name'), 2);
  assert.equal(by.get('main;after'), 4);
  assert.equal(by.get(deep), 3);
  assert.equal(q.tree.weight, 10);
});

test('a weight after a no-break space, a trailing one, and names past ASCII still count', async () => {
  const p = await foldedImporter.load(file('main;a\u00a012\nmain;b 3\u00a0\nmain;\u00e9 5\nmain;\u540d\u524d 7\n'), {});
  assert.deepEqual(stacks(toFolded(p)), ['main;a 12', 'main;b 3', 'main;\u00e9 5', 'main;\u540d\u524d 7'].sort());
  assert.deepEqual(p.warnings, []);
});

test('weights: exact integers up to 2^53, exponents, and damage skipped with one warning', async () => {
  const p = await foldedImporter.load(file('a 9007199254740991\nb 1.5e2\nc 1e999\nd 12345678901234567890\ne 1.\nf -1\ng 0\n'), {});
  assert.deepEqual(stacks(toFolded(p)), ['a 9007199254740991', 'b 150']);
  assert.equal(p.warnings.length, 1);
  assert.match(p.warnings[0], /\b4 lines/);
});

test('frames: one id per distinct name and location, whatever order they come in', () => {
  const t = new FrameTable();
  const f = (name: string, file = '', line = 0, extra: object = {}) => t.intern({ name, file, line, column: 0, category: 'app', ...extra });
  const a = f('run', '/a.js', 3);
  assert.equal(f('run', '/a.js', 3), a);
  assert.notEqual(f('run', '/b.js', 3), a);
  assert.notEqual(f('run', '/a.js', 4), a);
  assert.notEqual(f('run', '/a.js', 3, { tier: 'turbofan' }), a);
  assert.equal(f('run', '/a.js', 3, { tier: 'turbofan' }), f('run', '/a.js', 3, { tier: 'turbofan' }));
  assert.equal(f('run', '/a.js', 3, { lib: undefined }), a);
  assert.equal(t.size, 4);
});
