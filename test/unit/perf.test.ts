import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { classifyPerfFrame, isPerfData, isPerfScript, perfImporter, PerfScriptParser } from '../../src/core/importers/perf';
import type { Profile } from '../../src/core/model';

// Lines as this machine's `perf script -F comm,pid,tid,time,period,event,ip,sym,dso` printed them
// (node 20, --perf-basic-prof --interpreted-frames-native-stack), plus a thread whose name has spaces.
const TEXT = [
  'node 15703/15703   823.449451:    1001001 cpu-clock:ppp: ',
  '\t    7fb7740243e0 JS:*fib /tmp/pf/fib.js:1:13 (/tmp/perf-15703.map)',
  '\t    7fb774024397 JS:*fib /tmp/pf/fib.js:1:13 (/tmp/perf-15703.map)',
  '\t    7fb774024efd JS:^work /tmp/pf/fib.js:2:14 (/tmp/perf-15703.map)',
  '\t    7fb7740034dc JS:~ node:internal/main/run_main_module:1:1 (/tmp/perf-15703.map)',
  '\t         14ce0dc Builtins_JSEntryTrampoline (/usr/bin/node)',
  '',
  'node 15703/15703   823.450443:    1001001 cpu-clock:ppp: ',
  '\t         1499bf1 deflate_slow (/usr/bin/node)',
  '\t          9be85c node::(anonymous namespace)::ZlibContext::DoThreadPoolWork (/usr/bin/node)',
  '\t    7fe1a00331dc JS:~compressAll /tmp/pf/z.js:3:21 (/tmp/perf-15703.map)',
  '',
  'V8 DefaultWorke 15703/15706   823.451443:    2002002 cpu-clock:ppp: ',
  '\tffffffff815a23ce filemap_map_pages ([kernel.kallsyms])',
  '\t          98109 _int_malloc (/usr/lib/x86_64-linux-gnu/libc.so.6)',
  '\t               0 [unknown] ([unknown])',
  '',
  'node 15703/15703   823.452443:    1001001 cpu-clock:ppp: ',
  '\t    7fb7740243e0 JS:*fib /tmp/pf/fib.js:1:13 (/tmp/perf-15703.map)',
  '\t    7fb774024397 JS:*fib /tmp/pf/fib.js:1:13 (/tmp/perf-15703.map)',
  '\t    7fb774024efd JS:^work /tmp/pf/fib.js:2:14 (/tmp/perf-15703.map)',
  '\t    7fb7740034dc JS:~ node:internal/main/run_main_module:1:1 (/tmp/perf-15703.map)',
  '\t         14ce0dc Builtins_JSEntryTrampoline (/usr/bin/node)',
  '',
].join('\n');

function parse(chunks: (string | Buffer)[]): Profile {
  const p = new PerfScriptParser();
  for (const c of chunks) p.push(c);
  return p.end();
}

/** Folded stacks with frame names, thread roots included: a stable view to compare parses. */
function folded(p: Profile): string[] {
  const out: string[] = [];
  p.tree.forEachStack((s, w) => out.push(`${s.map((f) => p.frames[f].name).join(';')} ${w}`));
  return out.sort();
}

test('parses samples: threads apart, weights by period, leaf last in the tree', () => {
  const p = parse([TEXT]);
  assert.equal(p.format, 'perf');
  assert.equal(p.tree.weight, 1001001 * 3 + 2002002);
  assert.deepEqual(
    p.threads.map((t) => [t.name, t.pid, t.tid, t.samples]),
    [
      ['node 15703/15703', 15703, 15703, 3003003],
      ['V8 DefaultWorke 15703/15706', 15703, 15706, 2002002],
    ],
  );
  assert.deepEqual(folded(p), [
    'thread V8 DefaultWorke 15703/15706;[unknown];_int_malloc;filemap_map_pages 2002002',
    'thread node 15703/15703;Builtins_JSEntryTrampoline;(anonymous);work;fib;fib 2002002',
    'thread node 15703/15703;compressAll;node::(anonymous namespace)::ZlibContext::DoThreadPoolWork;deflate_slow 1001001',
  ]);
  assert.equal(p.meta.intervalMs, 1.001001);
  assert.ok(Math.abs((p.meta.durationMs ?? 0) - 2.992) < 1e-6);
  // cpu-clock periods are nanoseconds: self time in ms follows them.
  assert.ok(Math.abs(p.tree.totalTime[0] - 5.005005) < 1e-9);
  // fib is TurboFan code (`JS:*fib`) with 40 % of the weight: perf cannot tell what was inlined into it, and says so.
  assert.equal(p.warnings.length, 1);
  assert.match(p.warnings[0], /^40\.0 % of the samples ran in optimized JavaScript/);
});

test('the same result whatever the chunk boundaries, including inside a UTF-8 character', () => {
  const text = TEXT.replace('JS:^work', 'JS:^wörk_名前');
  const bytes = Buffer.from(text, 'utf8');
  const whole = folded(parse([bytes]));
  assert.ok(whole.some((l) => l.includes('wörk_名前')));
  for (const size of [1, 7, 64, 333]) {
    const parts: Buffer[] = [];
    for (let i = 0; i < bytes.length; i += size) parts.push(bytes.subarray(i, i + size));
    assert.deepEqual(folded(parse(parts)), whole, `chunks of ${size}`);
  }
  // No trailing newline and CRLF line ends.
  assert.deepEqual(folded(parse([text.trimEnd().replace(/\n/g, '\r\n')])), whole);
});

test('default perf script output: tid only, symbol offsets, no pid field', () => {
  const text = [
    'node 15703   823.449451:    1001001 cpu-clock:ppp: ',
    '\t    7fb7740243e0 JS:*fib /tmp/pf/fib.js:1:13+0xe0 (/tmp/perf-15703.map)',
    '\t    7fb774024397 JS:*fib /tmp/pf/fib.js:1:13+0x97 (/tmp/perf-15703.map)',
    '\t          79c9d0 node::Start+0x154 (/usr/bin/node)',
    '',
  ].join('\n');
  const p = parse([text]);
  assert.deepEqual(folded(p), ['node::Start;fib;fib 1001001']);
  assert.deepEqual(
    p.threads.map((t) => [t.name, t.tid]),
    [['node 15703', 15703]],
  );
  // Offsets differ but it is one function: one frame.
  assert.equal(p.frames.filter((f) => f.name === 'fib').length, 1);
});

test('a recording without call graphs carries the frame on the header line', () => {
  const p = parse([
    'node 1/1 5.000000: 250000 cycles:u:  55d0c0 deflate_slow (/usr/bin/node)\nnode 1/1 5.000100: 250000 cycles:u:  55d0c0 deflate_slow (/usr/bin/node)\n',
  ]);
  assert.deepEqual(folded(p), ['deflate_slow 500000']);
  // Not a clock event: weights are event counts, no time.
  assert.equal(p.tree.totalTime[0], 0);
});

test('classifies frames: JS tiers and locations, builtins, native, shared libs, kernel, unknown', () => {
  const js = classifyPerfFrame('JS:*fib /app/x.js:1:13 (/tmp/perf-1.map)');
  assert.deepEqual({ ...js }, { name: 'fib', file: '/app/x.js', line: 1, column: 13, category: 'app', tier: 'turbofan' });
  assert.equal(classifyPerfFrame('JS:~work /app/x.js:2:14 (/tmp/perf-1.map)').tier, 'interpreted');
  assert.equal(classifyPerfFrame('JS:^work /app/x.js:2:14 (/tmp/perf-1.map)').tier, 'sparkplug');
  assert.equal(classifyPerfFrame('JS:+work /app/x.js:2:14 (/tmp/perf-1.map)').tier, 'maglev');
  const old = classifyPerfFrame('LazyCompile:*handle /srv/app/node_modules/express/lib/router/index.js:136 (/tmp/perf-9.map)');
  assert.deepEqual(
    [old.name, old.file, old.line, old.column, old.category, old.pkg],
    ['handle', '/srv/app/node_modules/express/lib/router/index.js', 136, 0, 'dependency', 'express'],
  );
  const getter = classifyPerfFrame('JS:~get value /my app/src/a b.js:10:5 (/tmp/perf-1.map)');
  assert.deepEqual([getter.name, getter.file, getter.line, getter.column], ['get value', '/my app/src/a b.js', 10, 5]);
  const core = classifyPerfFrame('JS:~Module._load node:internal/modules/cjs/loader:1003:24 (/tmp/perf-1.map)');
  assert.deepEqual([core.name, core.file, core.line, core.category], ['Module._load', 'node:internal/modules/cjs/loader', 1003, 'node']);
  const top = classifyPerfFrame('JS:~ /app/x.js:1:1 (/tmp/perf-1.map)');
  assert.deepEqual([top.name, top.file, top.line], ['(anonymous)', '/app/x.js', 1]);
  // eval / new Function: V8's map gives a position and no script (ajv's validators, as this machine's jit map named them).
  const made = classifyPerfFrame('JS:^validate10 :3:150 (/tmp/perf-1.map)');
  assert.deepEqual({ ...made }, { name: "validate10 (eval'd code)", file: '', line: 3, column: 150, category: 'eval', tier: 'sparkplug' });
  assert.equal(classifyPerfFrame('JS:~ :1:20 (/tmp/perf-1.map)').name, "(anonymous) (eval'd code)");
  const win = classifyPerfFrame('JS:*f C:\\app\\x.js:4:2 (/tmp/perf-1.map)');
  assert.deepEqual([win.file, win.line, win.column], ['C:\\app\\x.js', 4, 2]);

  const mapBuiltin = classifyPerfFrame('Builtin:ArrayPrototypePush (/tmp/perf-1.map)');
  assert.deepEqual([mapBuiltin.name, mapBuiltin.category, mapBuiltin.tier], ['ArrayPrototypePush', 'v8', 'builtin']);
  const builtin = classifyPerfFrame('Builtins_InterpreterEntryTrampoline (/usr/bin/node)');
  assert.deepEqual([builtin.category, builtin.tier, builtin.lib], ['v8', 'builtin', '/usr/bin/node']);
  assert.equal(classifyPerfFrame('v8::internal::Heap::CollectGarbage (/usr/local/bin/node)').category, 'gc');
  const nat = classifyPerfFrame('deflate_slow (/usr/bin/node)');
  assert.deepEqual([nat.category, nat.lib], ['native', '/usr/bin/node']);
  assert.equal(classifyPerfFrame('node::Start (/usr/lib/x86_64-linux-gnu/libnode.so.109)').category, 'native');
  const lib = classifyPerfFrame('pixman_composite_trapezoids (/app/node_modules/canvas/build/Release/libpixman-1.so.0)');
  assert.deepEqual(
    [lib.name, lib.category, lib.lib],
    ['pixman_composite_trapezoids', 'shared-lib', '/app/node_modules/canvas/build/Release/libpixman-1.so.0'],
  );
  const k = classifyPerfFrame('asm_exc_page_fault+0x22 ([kernel.kallsyms])');
  assert.deepEqual([k.name, k.category], ['asm_exc_page_fault', 'kernel']);
  assert.deepEqual(
    [classifyPerfFrame('[unknown] ([unknown])').name, classifyPerfFrame('[unknown] ([unknown])').category],
    ['[unknown]', 'unaccounted'],
  );
  assert.equal(classifyPerfFrame('[unknown] (/tmp/perf-1.map)').category, 'unaccounted');
  const cpp = classifyPerfFrame('node::(anonymous namespace)::ZlibContext::DoThreadPoolWork (/usr/bin/node)');
  assert.equal(cpp.name, 'node::(anonymous namespace)::ZlibContext::DoThreadPoolWork');
});

test('a missing perf map is reported once, in words', () => {
  const p = parse([
    'node 7/7 1.0: 1 cpu-clock: \n\t 7f00 [unknown] (/tmp/perf-7.map)\n\nnode 7/7 1.1: 1 cpu-clock: \n\t 7f08 [unknown] (/tmp/perf-7.map)\n\n',
  ]);
  assert.equal(p.tree.weight, 2);
  assert.equal(p.warnings.filter((w) => w.includes('/tmp/perf-7.map')).length, 1);
});

test('sniff: perf.data magic and perf script text, not folded stacks or V8 logs', () => {
  assert.equal(isPerfData(Buffer.from('PERFILE2\x68\x00\x00\x00')), true);
  assert.equal(isPerfData(Buffer.from('PERFILE')), false);
  assert.equal(isPerfScript(Buffer.from(TEXT)), true);
  assert.equal(isPerfScript(Buffer.from('# ========\n# captured on: x\n# ========\n#\n' + TEXT)), true);
  assert.equal(isPerfScript(Buffer.from('node;main;fib 12\nnode;main;work 3\n')), false);
  assert.equal(isPerfScript(Buffer.from('v8-version,11,3,244,8,0,0\ncode-creation,Builtin,2,3770,0x5601,1,ArrayPush\n')), false);
  assert.equal(isPerfScript(Buffer.from('{"nodes":[],"samples":[]}')), false);
});

test('loading a text file streams it: progress reaches 1, an aborted signal stops it', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'nf-perf-unit-'));
  try {
    const file = join(dir, 'perf.txt');
    writeFileSync(file, TEXT.repeat(2000));
    assert.equal(perfImporter.sniff(Buffer.from(TEXT), file), true);
    const seen: number[] = [];
    const p = await perfImporter.load(file, { onProgress: (f) => seen.push(f) });
    assert.equal(p.tree.weight, 2000 * (1001001 * 3 + 2002002));
    assert.equal(seen.at(-1), 1);
    assert.ok(seen.every((f, i) => i === 0 || f >= seen[i - 1]));
    const ac = new AbortController();
    ac.abort();
    await assert.rejects(perfImporter.load(file, { signal: ac.signal }), /abort/i);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
