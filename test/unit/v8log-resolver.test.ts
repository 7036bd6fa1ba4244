import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ProfileBuilder, type Profile } from '../../src/core/model';
import { IsolateLog } from '../../src/core/importers/v8log/isolate';
import { NativeResolver } from '../../src/core/importers/v8log/native';
import { parseSourcePositions } from '../../src/core/importers/v8log/positions';
import { seededRandom } from '../../src/core/seededRandom';

// The resolver keeps each code object's answers by offset: these are the changes that must make it answer anew.

const HEAD = ['v8-version,11,3,244,8,-node.38,0', 'profiler,begin,1000'];
/** Line 1 `function foo() {`, line 2 `  let a = 1;`, line 3 `  return a;`; offsets 20 and 33 are on lines 2 and 3. */
const SRC = 'function foo() {\\n  let a = 1;\\n  return a;\\n}\\n';
const FOO = 'code-creation,JS,10,100,0x10000,256,foo /app/l.js:1:13,0x5000,~';
const BAR = 'code-creation,JS,10,101,0x30000,256,bar /app/l.js:5:13,0x5100,~';

function replay(lines: string[]): Profile {
  const builder = new ProfileBuilder('v8log', { durationMs: null, mode: 'prof' });
  const iso = new IsolateLog({ builder, native: new NativeResolver() });
  for (const l of [...HEAD, ...lines]) assert.equal(iso.line(l), undefined, l);
  iso.finish();
  return builder.build();
}

let ts = 1000;
const tick = (pc: number, ...frames: string[]) => `tick,0x${pc.toString(16)},${(ts += 1000)},0,0x0,0${frames.map((f) => ',' + f).join('')}`;
const selfAt = (p: Profile, line: number) => p.lineHits.get('/app/l.js')?.get(line)?.self ?? 0;

test('a script logged after a tick gives the next tick at the same pc its line', () => {
  const p = replay([
    FOO,
    BAR,
    'code-source-info,0x10000,9,0,50,C0O20,,',
    tick(0x10010), // script 9 not known yet: no line
    `script-source,9,/app/l.js,${SRC}`,
    tick(0x10010, '0x30010'), // the same pc under a caller: its answer is made again
  ]);
  assert.equal(selfAt(p, 2), 1, 'the tick after the script arrived is at line 2');
});

test('positions logged again for a code object replace the ones it was read with', () => {
  const p = replay([
    `script-source,9,/app/l.js,${SRC}`,
    FOO,
    BAR,
    'code-source-info,0x10000,9,0,50,C0O20,,',
    tick(0x10010),
    'code-source-info,0x10000,9,0,50,C0O33,,',
    tick(0x10010, '0x30010'),
  ]);
  assert.equal(selfAt(p, 2), 1, 'the first tick, at line 2');
  assert.equal(selfAt(p, 3), 1, 'the second, read with the new positions, at line 3');
});

// A return address's answer is kept for the stacks to come, checked on use against the code it was read from.
const BAZ_AT_FOO = 'code-creation,JS,10,102,0x10000,256,baz /app/l.js:9:13,0x5200,~';
/** Callers' names of the tree's paths to the node of `leaf`, root first (thread and state frames left out). */
const callersOf = (p: Profile, leaf: string): string[][] => {
  const out: string[][] = [];
  for (let n = 1; n < p.tree.count; n++) {
    if (p.frames[p.tree.frame[n]].name !== leaf || !p.tree.self[n]) continue;
    const path: string[] = [];
    for (let k = p.tree.parent[n]; k > 0; k = p.tree.parent[k]) path.unshift(p.frames[p.tree.frame[k]].name);
    out.push(path);
  }
  return out.sort();
};

test('a caller whose code was overwritten, moved or deleted is read from the code at its address now', () => {
  const overwritten = replay([FOO, BAR, tick(0x30010, '0x10011'), BAZ_AT_FOO, tick(0x30010, '0x10011')]);
  assert.deepEqual(callersOf(overwritten, 'bar'), [['baz'], ['foo']]);
  const moved = replay([
    FOO,
    BAR,
    tick(0x30010, '0x10011'),
    'code-move,0x10000,0x20000',
    BAZ_AT_FOO,
    tick(0x30010, '0x10011'),
    tick(0x30010, '0x20011'),
  ]);
  assert.deepEqual(callersOf(moved, 'bar'), [['baz'], ['foo']]);
  const deleted = replay([
    FOO,
    BAR,
    tick(0x30010, '0x10011'),
    'code-delete,0x10000',
    tick(0x30010, '0x10011'),
    BAZ_AT_FOO,
    tick(0x30010, '0x10011'),
  ]);
  // While foo's code was gone, its return address was nowhere: bar with no caller.
  assert.deepEqual(callersOf(deleted, 'bar'), [[], ['baz'], ['foo']]);
});

test("a caller's line follows positions logged again for its code", () => {
  const p = replay([
    `script-source,9,/app/l.js,${SRC}`,
    FOO,
    BAR,
    // Interpreted (~) frames hold the offset itself: 0x10014 is offset 20.
    'code-source-info,0x10000,9,0,50,C0O20C25O33,,',
    tick(0x30010, '0x10014'),
    'code-source-info,0x10000,9,0,50,C0O33,,',
    // Other callers' text: the same would be the callers' stack already built, lines and all.
    tick(0x30010, '0x10014', '0x30099'),
  ]);
  const totalAt = (line: number) => p.lineHits.get('/app/l.js')?.get(line)?.total ?? 0;
  assert.equal(totalAt(2), 1, 'first read at line 2');
  assert.equal(totalAt(3), 1, 'then, with the new positions, at line 3');
});

test('source positions: the scanner reads what the regular expression it replaced reads, malformed text too', () => {
  const reference = (s: string, lead: string) => {
    const out: number[][] = [];
    const re = new RegExp(`${lead}(\\d+)O(-?\\d+)(?:I(\\d+))?`, 'g');
    // As the typed arrays hold them (-0 is 0).
    for (let m = re.exec(s); m; m = re.exec(s)) out.push([+m[1] | 0, +m[2] | 0, m[3] === undefined ? -1 : +m[3] | 0]);
    return out;
  };
  const alphabet = ['C', 'O', 'I', 'F', '-', '0', '1', '7', '9', 'x'];
  // mulberry32: an LCG's low bits in doubles repeat with a short period.
  const r = seededRandom(7);
  const rnd = (n: number) => Math.floor(r() * n);
  for (let k = 0; k < 3000; k++) {
    let s = '';
    for (let i = rnd(40); i > 0; i--) s += alphabet[rnd(alphabet.length)];
    if (k % 3 === 0) s = `C${rnd(99)}O${rnd(99)}${s}C${rnd(9)}O-${rnd(9)}I${rnd(9)}`;
    const p = parseSourcePositions(1, s, s.replace(/C/g, 'F'), []);
    const want = reference(s, 'C');
    const fns = reference(s.replace(/C/g, 'F'), 'F');
    if (!p) {
      assert.equal(want.length, 0, s);
      continue;
    }
    const order = want.map((_, i) => i).sort((a, b) => want[a][0] - want[b][0] || a - b);
    assert.deepEqual(
      [...p.codeOffsets],
      order.map((i) => want[i][0]),
      s,
    );
    assert.deepEqual(
      [...p.scriptOffsets],
      order.map((i) => want[i][1]),
      s,
    );
    assert.deepEqual(
      [...p.inlining],
      order.map((i) => want[i][2]),
      s,
    );
    assert.deepEqual(
      [...p.inlFn],
      fns.map((x) => x[0]),
      s,
    );
    assert.deepEqual(
      [...p.inlPos],
      fns.map((x) => x[1]),
      s,
    );
    assert.deepEqual(
      [...p.inlParent],
      fns.map((x) => x[2]),
      s,
    );
  }
});
