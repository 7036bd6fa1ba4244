import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { formatJitLoads, parseJitLoads, readJitDump, readJitDumpFrom } from '../../src/core/importers/perf/jitDump';
import { JitMap } from '../../src/core/importers/perf/jitMaps';
import { JitFrameNamer, nameFromLine, nameInLine } from '../../src/core/importers/perf/jitNamer';
import { classifyPerfFrame } from '../../src/core/importers/perf/frames';
import { TimedJitMap } from '../../src/core/importers/perf/jitTimeline';

/** A jitdump as V8 writes one (header, then JIT_CODE_LOAD records with their code bytes, and a move). */
function jitdump(records: { ts: number; addr: number; size: number; name?: string; from?: number }[]): Buffer {
  const head = Buffer.alloc(40);
  head.writeUInt32LE(0x4a695444, 0);
  head.writeUInt32LE(1, 4);
  head.writeUInt32LE(40, 8);
  const parts = [head];
  for (const r of records) {
    if (r.from !== undefined) {
      const b = Buffer.alloc(16 + 56);
      b.writeUInt32LE(1, 0);
      b.writeUInt32LE(b.length, 4);
      b.writeBigUInt64LE(BigInt(r.ts), 8);
      b.writeBigUInt64LE(BigInt(r.from), 16 + 16);
      b.writeBigUInt64LE(BigInt(r.addr), 16 + 24);
      b.writeBigUInt64LE(BigInt(r.size), 16 + 32);
      parts.push(b);
      continue;
    }
    const name = Buffer.from(r.name + '\0');
    const code = Buffer.alloc(r.size, 0xcc);
    const b = Buffer.alloc(16 + 40);
    b.writeUInt32LE(0, 0);
    b.writeUInt32LE(b.length + name.length + code.length, 4);
    b.writeBigUInt64LE(BigInt(r.ts), 8);
    b.writeBigUInt64LE(BigInt(r.addr), 16 + 8);
    b.writeBigUInt64LE(BigInt(r.addr), 16 + 16);
    b.writeBigUInt64LE(BigInt(r.size), 16 + 24);
    parts.push(b, name, code);
  }
  return Buffer.concat(parts);
}

const A = 0x7f0000001000;

test('a jitdump read back: loads and moves, in order, the code bytes skipped; the compact form round-trips', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'nf-jitdump-'));
  try {
    const file = join(dir, 'jit-1.dump');
    writeFileSync(
      file,
      jitdump([
        { ts: 1000, addr: A, size: 0x40, name: 'JS:*callerA /a.js:9:18' },
        { ts: 2000, addr: A, size: 0x80, name: 'JS:~f /a.js:1:1' },
        { ts: 3000, addr: A + 0x1000, size: 0x80, from: A },
      ]),
    );
    const loads = await readJitDump(file);
    assert.deepEqual(loads, [
      { ts: 1000, start: A, size: 0x40, name: 'JS:*callerA /a.js:9:18' },
      { ts: 2000, start: A, size: 0x80, name: 'JS:~f /a.js:1:1' },
      { ts: 3000, start: A + 0x1000, size: 0x80, name: '', from: A },
    ]);
    assert.deepEqual(parseJitLoads(formatJitLoads(loads!)), loads);
    // Cut short mid-record: what came before stays.
    writeFileSync(file, jitdump([{ ts: 1, addr: A, size: 0x400, name: 'JS:~g /g.js:1:1' }]).subarray(0, 60));
    assert.deepEqual(await readJitDump(file), []);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a jitdump read on while it is written: cut anywhere, the reads from each last end give the whole read', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'nf-jitdump-on-'));
  try {
    const file = join(dir, 'jit-1.dump');
    // A record with 2 MB of code: past the reader's 1 MB chunk, skipped by seeking.
    const whole = jitdump([
      { ts: 1000, addr: A, size: 0x40, name: 'JS:*callerA /a.js:9:18' },
      { ts: 2000, addr: A + 0x100, size: 0x200000, name: 'JS:~big /a.js:1:1' },
      { ts: 3000, addr: A + 0x1000, size: 0x80, from: A },
      { ts: 4000, addr: A + 0x300000, size: 0x30, name: 'JS:~late /b.js:2:1' },
    ]);
    writeFileSync(file, whole);
    const all = (await readJitDump(file))!;
    assert.equal(all.length, 4);
    const big = 40 + 56 + 'JS:*callerA /a.js:9:18'.length + 1 + 0x40;
    const cuts = [10, 40, 41, 80, big - 1, big, big + 30, big + 200, 1 << 20, whole.length - 100, whole.length - 1];
    for (const [a, b] of cuts.flatMap((x) => cuts.filter((y) => y > x).map((y) => [x, y]))) {
      writeFileSync(file, whole.subarray(0, a));
      const r1 = await readJitDumpFrom(file, 0);
      writeFileSync(file, whole.subarray(0, b));
      const r2 = r1 && (await readJitDumpFrom(file, r1.end));
      writeFileSync(file, whole);
      const r3 = await readJitDumpFrom(file, r2?.end ?? r1?.end ?? 0);
      const got = [...(r1?.loads ?? []), ...(r2?.loads ?? []), ...(r3?.loads ?? [])];
      assert.deepEqual(got, all, `cut at ${a} then ${b}`);
      assert.equal(r3?.end, whole.length, `cut at ${a} then ${b}: read to the end`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('TimedJitMap: an address is named by the code there at the time asked; freed and moved code loses its name', () => {
  const m = new TimedJitMap([
    { ts: 100, start: A, size: 0x100, name: 'old' },
    { ts: 200, start: A + 0x80, size: 0x40, name: 'new' },
    { ts: 300, start: A + 0x1000, size: 0x40, name: '', from: A + 0x80 },
  ]);
  assert.equal(m.find(A + 0x90, 50), null, 'nothing there yet');
  assert.equal(m.find(A + 0x90, 150), 'old');
  assert.equal(m.find(A + 0x90, 250), 'new');
  assert.equal(m.find(A + 0x10, 250), null, 'the rest of the overlapped code was freed');
  assert.equal(m.find(A + 0x90, 350), null, 'moved away');
  assert.equal(m.find(A + 0x1010, 350), 'new', 'found where it moved');
});

test('JitMap without times: a reused address is ambiguous, the same function at two tiers is not', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'nf-map-'));
  try {
    const file = join(dir, 'perf-7.map');
    const hex = (n: number) => n.toString(16);
    writeFileSync(
      file,
      [
        `${hex(A)} 40 JS:~f /a.js:1:1`,
        `${hex(A)} 40 JS:*f /a.js:1:1`,
        `${hex(A + 0x100)} 40 JS:~callerA /a.js:9:1`,
        `${hex(A + 0x100)} 40 JS:~(anonymous) node:internal/perf/performance:1:1`,
        '',
      ].join('\n'),
    );
    const map = (await JitMap.read(file))!;
    assert.deepEqual(map.lookup(A + 4), { name: 'JS:*f /a.js:1:1' });
    assert.deepEqual(map.lookup(A + 0x104), { ambiguous: 2 });
    assert.equal(map.lookup(A + 0x200), null);

    // perf named the frame by the map's first line; the namer says it is ambiguous instead, per thread.
    const namer = new JitFrameNamer(new Map([[7, { map }]]));
    const text =
      namer
        .push(
          Buffer.from(
            `node 7/9   10.000000001:    1001001 cpu-clock:ppp: \n\t    ${hex(A + 0x104)} JS:~callerA /a.js:9:1 (/tmp/perf-7.map)\n\n`,
          ),
        )
        .toString() + namer.end().toString();
    assert.match(text, /\[ambiguous JIT code\] \(\/tmp\/perf-7\.map\)/);
    assert.deepEqual([...namer.stats.ambiguousByThread], [['node 7/9', 1]]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a line break in a function name (V8 writes names unescaped): read whole from both maps, named whole in perf script', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'nf-map-'));
  try {
    const hex = (n: number) => n.toString(16);
    const file = join(dir, 'perf-7.map');
    writeFileSync(file, [`${hex(A)} 40 JS:~line`, 'break /a.js:2:26', `${hex(A + 0x100)} 40 JS:~next /a.js:3:1`, ''].join('\n'));
    const map = (await JitMap.read(file))!;
    assert.deepEqual(map.lookup(A + 4), { name: 'JS:~line\nbreak /a.js:2:26' });
    assert.deepEqual(map.lookup(A + 0x104), { name: 'JS:~next /a.js:3:1' });

    const loads = [
      { ts: 5, start: A, size: 0x40, name: 'JS:~a\nb\r\0c /a.js:2:26' },
      { ts: 6, start: A + 0x100, size: 0x40, name: 'JS:~next /a.js:3:1' },
    ];
    assert.deepEqual(parseJitLoads(formatJitLoads(loads)), loads);

    // The namer writes the name into one line of perf script text; the frame reads it back whole.
    const namer = new JitFrameNamer(new Map([[7, { map }]]));
    const text =
      namer
        .push(Buffer.from(`node 7/9   10.000000001:    1001001 cpu-clock:ppp: \n\t    ${hex(A + 4)} JS:~line (/tmp/perf-7.map)\n\n`))
        .toString() + namer.end().toString();
    const frameLine = text.split('\n').find((l) => l.endsWith('(/tmp/perf-7.map)'))!;
    const f = classifyPerfFrame(frameLine.trim().replace(/^\S+ /, ''));
    assert.equal(f.name, 'line\nbreak');
    assert.equal(f.file, '/a.js');
    assert.equal(f.line, 2);
    assert.equal(nameFromLine(nameInLine('a\0b\nc\rd')), 'a\0b\nc\rd');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
