// perf unwinds by frame pointer: a stack through code built without them (OpenSSL's assembly) stops short of its
// thread's start, and its time is drawn at the root, missing from its callers. perf mode says how much, and where.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PerfScriptParser } from '../../src/core/importers/perf';
import type { Profile } from '../../src/core/model';

const HEAD = (ts: number) => `node 900/900   ${(100 + ts / 1000).toFixed(6)}:    1000000 cpu-clock:ppp: `;
/** A whole stack: a JS function called from node's main, down to libc's start. */
const WHOLE = [
  '\t    7fb774024efd JS:*hashAll /app/h.js:2:14 (/tmp/perf-900.map)',
  '\t         14ce0dc Builtins_JSEntryTrampoline (/usr/bin/node)',
  '\t          c0ffee node::Start (/usr/bin/node)',
  '\t           29d90 __libc_start_call_main (/usr/lib/x86_64-linux-gnu/libc.so.6)',
];
/** OpenSSL's assembly called from hashAll: perf lost every caller past it. */
const LOST = ['\t         2a1b2c3 sha512_block_data_order_avx2 (/usr/bin/node)', '\t               0 [unknown] ([unknown])'];
/** A worker thread's stack, whole: it starts at start_thread. */
const WORKER = [
  '\t          9be85c uv__work_done (/usr/bin/node)',
  '\t           94ac3 start_thread (/usr/lib/x86_64-linux-gnu/libc.so.6)',
];

function perfText(stacks: string[][]): Profile {
  const p = new PerfScriptParser();
  p.push(stacks.map((s, i) => [HEAD(i), ...s, ''].join('\n')).join('\n') + '\n');
  return p.end();
}
const note = (p: Profile) => p.warnings.find((w) => /do not reach their thread's start/.test(w));
const times = <T>(n: number, x: T): T[] => Array.from({ length: n }, () => x);
/** Each stack's frame names, root first, with its sample count. */
function stacks(p: Profile): string[] {
  const out: string[] = [];
  p.tree.forEachStack((s, w) => out.push(`${s.map((f) => p.frames[f].name).join(';')} ${w / 1e6}`));
  return out.sort();
}

test('a tenth of the stacks lost their callers: drawn under (callers unknown), said with the share and the frame', () => {
  const p = perfText([...times(80, WHOLE), ...times(10, WORKER), ...times(10, LOST)]);
  assert.equal(
    note(p)?.split(':')[0],
    "10.0 % of the samples' stacks do not reach their thread's start (the most under sha512_block_data_order_avx2 (node), 10.0 %)",
  );
  assert.deepEqual(stacks(p), [
    '(callers unknown);[unknown];sha512_block_data_order_avx2 10',
    '__libc_start_call_main;node::Start;Builtins_JSEntryTrampoline;hashAll 80',
    'start_thread;uv__work_done 10',
  ]);
});

test('a few lost stacks (under 5 %) are drawn under (callers unknown) without a note; whole stacks are left as they are', () => {
  const few = perfText([...times(97, WHOLE), ...times(3, LOST)]);
  assert.equal(note(few), undefined);
  assert.ok(stacks(few).includes('(callers unknown);[unknown];sha512_block_data_order_avx2 3'), stacks(few).join(' | '));
  const whole = perfText([...times(90, WHOLE), ...times(10, WORKER)]);
  assert.equal(note(whole), undefined);
  assert.ok(!whole.frames.some((f) => f.name === '(callers unknown)'));
});

test('no call graph, or no stack reaching a start anywhere (libc without symbols, an excerpt): nothing said or drawn', () => {
  // Recorded without -g: each sample is its one frame, and that is not a lost caller.
  const flat = new PerfScriptParser();
  flat.push(
    times(20, '')
      .map(
        (_, i) =>
          `node 900/900   ${(100 + i / 1000).toFixed(6)}:    1000000 cpu-clock:ppp:      2a1b2c3 sha512_block_data_order_avx2 (/usr/bin/node)\n`,
      )
      .join(''),
  );
  const fp = flat.end();
  assert.equal(fp.tree.weight, 20_000_000, 'the flat samples were read');
  assert.equal(note(fp), undefined);
  // The same stacks with libc's frames unnamed: no stack is known to be whole, so none is called cut short.
  const unnamed = perfText([
    ...times(
      80,
      WHOLE.map((l) => l.replace('__libc_start_call_main', '[unknown]')),
    ),
    ...times(20, LOST),
  ]);
  assert.equal(note(unnamed), undefined);
  assert.ok(!unnamed.frames.some((f) => f.name === '(callers unknown)'));
});
