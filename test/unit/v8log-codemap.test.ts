import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ProfileBuilder, type Profile } from '../../src/core/model';
import { CodeMap, type CodeInfo } from '../../src/core/importers/v8log/codeMap';
import { IsolateLog } from '../../src/core/importers/v8log/isolate';
import { NativeResolver } from '../../src/core/importers/v8log/native';

const HEAD = ['v8-version,11,3,244,8,-node.38,0', 'profiler,begin,1000'];
const FOO = 'code-creation,JS,10,100,0x10000,256,foo /app/a.js:3:10,0x5000,~';
const BAR = 'code-creation,JS,10,101,0x30000,256,bar /app/a.js:7:10,0x5100,^';
const BAZ = 'code-creation,JS,10,102,0x30100,256, /app/a.js:11:3,0x5200,*';

/** Replays synthetic log lines (no libraries, so nothing waits for `nm`). */
function replay(lines: string[]): { iso: IsolateLog; p: Profile } {
  const builder = new ProfileBuilder('v8log', { durationMs: null, mode: 'prof' });
  const iso = new IsolateLog({ builder, native: new NativeResolver() });
  for (const l of [...HEAD, ...lines]) assert.equal(iso.line(l), undefined, l);
  iso.finish();
  return { iso, p: builder.build() };
}

/** Every sampled stack as `root;…;leaf` → weight. */
function stacks(p: Profile): Record<string, number> {
  const out: Record<string, number> = {};
  p.tree.forEachStack((stack, self) => {
    const k = stack.map((f) => p.frames[f].name).join(';');
    out[k] = (out[k] ?? 0) + self;
  });
  return out;
}

let ts = 1000;
const tick = (pc: number, ...frames: string[]) => `tick,0x${pc.toString(16)},${(ts += 1000)},0,0x0,0${frames.map((f) => ',' + f).join('')}`;

test('CodeMap: find inside, not past the end; overwrite, move, delete', () => {
  const m = new CodeMap();
  const a: CodeInfo = { type: 'JS', name: 'a', tierMark: '~', sfi: NaN, frameId: -1 };
  const b: CodeInfo = { type: 'JS', name: 'b', tierMark: '~', sfi: NaN, frameId: -1 };
  m.add(0x1000, 0x2000, a); // spans three 4 KiB pages
  assert.equal(m.find(0x1000)?.info, a);
  assert.equal(m.find(0x2fff)?.info, a);
  assert.equal(m.find(0x3000), undefined);
  assert.equal(m.find(0xfff), undefined);
  const g = m.generation;
  m.add(0x2800, 0x100, b); // the GC reused a's space without a code-delete
  assert.ok(m.generation > g);
  assert.equal(m.find(0x1000), undefined);
  assert.equal(m.find(0x2810)?.info, b);
  assert.ok(m.move(0x2800, 0x9000));
  assert.equal(m.find(0x2810), undefined);
  assert.equal(m.find(0x9010)?.info, b);
  assert.equal(m.move(0x2800, 0x9000), false, 'nothing left at the old address');
  assert.ok(m.delete(0x9000));
  assert.equal(m.find(0x9010), undefined);
});

test('code-creation names a tick; the tier mark and the position come from the name', () => {
  const { p } = replay([FOO, tick(0x10010)]);
  assert.deepEqual(stacks(p), { foo: 1 });
  const f = p.frames.find((x) => x.name === 'foo')!;
  assert.equal(f.file, '/app/a.js');
  assert.equal(f.line, 3);
  assert.equal(f.column, 10);
  assert.equal(f.tier, 'interpreted');
});

test('code-move: ticks follow the code to its new address', () => {
  const { p } = replay([FOO, tick(0x10010), 'code-move,0x10000,0x20000', tick(0x20010), tick(0x10010)]);
  assert.deepEqual(stacks(p), { foo: 2, '(unaccounted)': 1 });
});

test('code-delete: a tick at freed code is unaccounted, and says so', () => {
  const { iso, p } = replay([FOO, tick(0x10010), 'code-delete,0x10000', tick(0x10010)]);
  assert.deepEqual(stacks(p), { foo: 1, '(unaccounted)': 1 });
  assert.equal(iso.unaccountedTicks, 1);
  assert.ok(iso.notes('x.log').some((n) => n.includes('1 of 2 ticks')));
});

test('relative +N/-N frames count from the previous address (the pc first)', () => {
  // pc in foo; callers: pc+0x20000 → bar, then +0x100 → baz (anonymous), then -0x100 → bar again.
  const { p } = replay([FOO, BAR, BAZ, tick(0x10010, '+20000', '+100', '-100')]);
  assert.deepEqual(stacks(p), { 'bar;(anonymous);bar;foo': 1 });
  const anon = p.frames.find((x) => x.name === '(anonymous)')!;
  assert.equal(anon.line, 11);
  assert.equal(anon.tier, 'turbofan');
});

test('absolute frames and `overflow` markers', () => {
  const { p } = replay([FOO, BAR, tick(0x10010, '0x30010', 'overflow')]);
  assert.deepEqual(stacks(p), { 'bar;foo': 1 });
});

test('sfi-move: an inlined callee logged under its old SharedFunctionInfo address is still found', () => {
  // Script: line 1 `function inner() {`, line 2 `  return 1;`, … line 5 `  return inner();`.
  const src = 'function inner() {\\n  return 1;\\n}\\nfunction outer() {\\n  return inner();\\n}\\n';
  const lines = [
    'script-source,7,/app/i.js,' + src,
    'code-creation,JS,10,100,0x40000,256,inner /app/i.js:1:16,0x6000,~',
    'sfi-move,0x6000,0x6800',
    'code-creation,JS,10,101,0x50000,256,outer /app/i.js:4:16,0x6900,*',
    // C20O21I0: code offsets 20.. run inner's `return 1` (offset 21), inlined at outer's call (offset 61).
    'code-source-info,0x50000,7,52,80,C0O52C20O21I0C40O61,F0O61,S0x6800',
    tick(0x50018),
  ];
  const { p } = replay(lines);
  assert.deepEqual(stacks(p), { 'outer;inner': 1 });
  const hits = p.lineHits.get('/app/i.js');
  assert.ok(hits, 'no line hits');
  assert.deepEqual(hits.get(2), { self: 1, total: 1 }, 'the inlined callee’s line holds the self time');
  assert.deepEqual(hits.get(5), { self: 0, total: 1 }, 'the call site in the caller');
});

test('without the sfi-move the inlined callee is lost: the test above depends on it', () => {
  const src = 'function inner() {\\n  return 1;\\n}\\nfunction outer() {\\n  return inner();\\n}\\n';
  const { p } = replay([
    'script-source,7,/app/i.js,' + src,
    'code-creation,JS,10,100,0x40000,256,inner /app/i.js:1:16,0x6000,~',
    'code-creation,JS,10,101,0x50000,256,outer /app/i.js:4:16,0x6900,*',
    'code-source-info,0x50000,7,52,80,C0O52C20O21I0C40O61,F0O61,S0x6800',
    tick(0x50018),
  ]);
  assert.deepEqual(stacks(p), { outer: 1 });
});

test('IDLE and GC ticks: the state is the leaf whatever the pc', () => {
  const idle = `tick,0x10010,${(ts += 1000)},0,0x0,8`;
  const gc = `tick,0x10010,${(ts += 1000)},0,0x0,1`;
  const { p } = replay([FOO, idle, gc]);
  assert.deepEqual(stacks(p), { '(idle)': 1, '(garbage collector)': 1 });
});

test('a malformed record is skipped and counted under its kind', () => {
  const { iso, p } = replay([FOO, 'code-move,zz,0x1', 'tick,nonsense', tick(0x10010)]);
  assert.deepEqual(stacks(p), { foo: 1 });
  assert.deepEqual(
    [...iso.malformed],
    [
      ['code-move', 1],
      ['tick', 1],
    ],
  );
});

test('Sparkplug code has no source positions: no line is invented, the warning counts its ticks', () => {
  const { iso, p } = replay([
    'script-source,8,/app/s.js,function f() {\\n  return 1;\\n}\\n',
    'code-creation,JS,11,100,0x60000,512,f /app/s.js:1:11,0x7000,^',
    // What V8 writes for baseline code: the table fields are empty.
    'code-source-info,0x60000,8,10,29,,,',
    tick(0x60040),
    tick(0x60080),
  ]);
  assert.deepEqual(stacks(p), { f: 2 });
  assert.equal(p.frames.find((x) => x.name === 'f')!.tier, 'sparkplug');
  assert.equal(p.lineHits.get('/app/s.js'), undefined, 'a line was made up for Sparkplug code');
  assert.deepEqual([...iso.linelessTicks], [['sparkplug', 2]]);
  assert.ok(iso.notes('x.log').some((n) => n.includes('2 of 2 ticks') && n.includes('sparkplug 2') && n.includes('2 stayed without')));
});

test('ticks without a pc are told apart from pcs outside known code', () => {
  const { iso, p } = replay([FOO, `tick,0x0,${(ts += 1000)},0,0x0,5`, tick(0x99999), tick(0x10010)]);
  assert.deepEqual(stacks(p), { '(unaccounted)': 2, foo: 1 });
  const notes = iso.notes('x.log');
  assert.ok(
    notes.some((n) => n.includes('1 of 3 ticks have no program counter')),
    notes.join('\n'),
  );
  assert.ok(
    notes.some((n) => n.includes('1 of 3 ticks had a program counter outside')),
    notes.join('\n'),
  );
});
