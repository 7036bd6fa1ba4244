import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { cli } from '../helpers/paths';

// V8 logs that name many or odd shared libraries, read by the real CLI (which runs the real `nm`): the number
// of `nm` processes alive at once stays within the pool, the symbol cache stays within its cap, and a
// corrupt cache file is replaced instead of crashing the report.
const LIB = ['/usr/lib/x86_64-linux-gnu/libuuid.so.1', '/lib/x86_64-linux-gnu/libuuid.so.1', '/usr/lib64/libuuid.so.1'].find(existsSync);
const dir = mkdtempSync(join(tmpdir(), 'nf-libs-'));
test.after(() => rmSync(dir, { recursive: true, force: true }));

/** A log naming `libs`, one tick in each at `at` (a symbol's link address, which equals its file offset in libuuid). */
function logNaming(name: string, libs: string[], at: number): string {
  const lines = ['v8-version,11,3,244,8,-node.38,0', 'v8-platform,linux,linux'];
  libs.forEach((l, i) =>
    lines.push(
      `shared-library,${l},0x${(0x7f0000000000 + i * 0x100000).toString(16)},0x${(0x7f0000000000 + i * 0x100000 + 0x40000).toString(16)},0`,
    ),
  );
  lines.push('shared-library-end', 'profiler,begin,1000');
  libs.forEach((_, i) => lines.push(`tick,0x${(0x7f0000000000 + i * 0x100000 + at + 4).toString(16)},${2000 + i},0,0x0,0`));
  const p = join(dir, name);
  writeFileSync(p, lines.join('\n') + '\n');
  return p;
}

/** `nm` children of `pid` alive right now. */
function nmChildren(pid: number): number {
  try {
    const kids = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean);
    return kids.filter((k) => {
      try {
        return readFileSync(`/proc/${k}/comm`, 'utf8').trim() === 'nm';
      } catch {
        return false;
      }
    }).length;
  } catch {
    return 0;
  }
}

interface Report {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
  mostNm: number;
}

function report(log: string, env: NodeJS.ProcessEnv): Promise<Report> {
  return new Promise((resolve) => {
    const t0 = Date.now();
    const child = spawn(process.execPath, [cli, 'report', log, '--format', 'json'], { env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    let mostNm = 0;
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const poll = setInterval(() => (mostNm = Math.max(mostNm, nmChildren(child.pid!))), 2);
    const guard = setTimeout(() => child.kill('SIGKILL'), 120_000);
    child.on('close', (code) => {
      clearInterval(poll);
      clearTimeout(guard);
      resolve({ code, stdout, stderr, ms: Date.now() - t0, mostNm });
    });
  });
}

const SYMBOL = 'uuid_generate_random';

function symbolOffset(): number {
  // The report itself is checked to name the symbol; this only finds its address.
  const out = execFileSync('nm', ['-D', '--defined-only', LIB!], { encoding: 'utf8' });
  const m = new RegExp(`^([0-9a-f]+) T ${SYMBOL}(@\\S*)?$`, 'm').exec(out);
  assert.ok(m, `the library exports ${SYMBOL}`);
  return parseInt(m[1], 16);
}

const cacheBytes = (d: string) => (existsSync(d) ? readdirSync(d).reduce((a, n) => a + statSync(join(d, n)).size, 0) : 0);

test(
  '300 libraries: nm runs in a pool of about the number of cores, and the symbol cache keeps to its cap',
  { skip: !LIB && 'no libz.so.1 here' },
  async () => {
    const at = symbolOffset();
    // 300 copies of one library: 300 files to the importer and its cache (links to one file would be read once).
    const libs = Array.from({ length: 300 }, (_, i) => {
      const p = join(dir, `libuuid-${i}.so.1`);
      copyFileSync(LIB!, p);
      return p;
    });
    const log = logNaming('many-v8.log', libs, at);
    const cache = join(dir, 'cache-many');
    const capMb = 0.02;
    const r = await report(log, { NODE_FLAME_CACHE: cache, NODE_FLAME_CACHE_MAX_MB: String(capMb) });
    const bytes = cacheBytes(join(cache, 'symbols'));
    const files = readdirSync(join(cache, 'symbols')).length;
    console.log(
      `[libs] ${libs.length} libraries (${(statSync(log).size / 1024).toFixed(0)} KB log): exit ${r.code} in ${r.ms} ms; at most ${r.mostNm} nm at once (pool ${availableParallelism()}); cache ${files} files, ${(bytes / 1024).toFixed(0)} KB (cap ${(capMb * 1024).toFixed(0)} KB)`,
    );
    assert.equal(r.code, 0, r.stderr);
    assert.ok(r.mostNm >= 1, 'nm processes were seen');
    assert.ok(r.mostNm <= availableParallelism(), `${r.mostNm} nm processes at once`);
    const one = bytes / files;
    assert.ok(bytes <= capMb * 2 ** 20 + one, `cache ${bytes} bytes over the ${capMb} MB cap`);
    assert.ok(files < libs.length, 'old entries were removed');
    assert.ok(JSON.parse(r.stdout).totalSamples === libs.length || r.stdout.includes(String(libs.length)), 'every tick counted');
  },
);

test(
  'a corrupt symbol cache file (offsets going backwards) is replaced, not a RangeError',
  { skip: !LIB && 'no libz.so.1 here' },
  async () => {
    const log = logNaming('one-v8.log', [LIB!], symbolOffset());
    const cache = join(dir, 'cache-corrupt');
    const first = await report(log, { NODE_FLAME_CACHE: cache });
    assert.equal(first.code, 0, first.stderr);
    assert.match(first.stdout, new RegExp(SYMBOL), 'the tick is named by its symbol');
    const [name] = readdirSync(join(cache, 'symbols'));
    const file = join(cache, 'symbols', name);
    const good = readFileSync(file);
    const n = good.readUInt32LE(4);
    const offsetsAt = 8 + n * 16;
    for (const [label, corrupt] of [
      [
        'offsets backwards',
        (b: Buffer) => {
          for (let i = 0; i <= n; i++) b.writeUInt32LE((n - i) * 7, offsetsAt + i * 4);
        },
      ],
      ['count too large', (b: Buffer) => b.writeUInt32LE(0xfffffff0, 4)],
      ['cut short', null],
    ] as const) {
      const b = Buffer.from(good);
      if (corrupt) corrupt(b);
      writeFileSync(file, label === 'cut short' ? b.subarray(0, offsetsAt + 10) : b);
      const r = await report(log, { NODE_FLAME_CACHE: cache });
      console.log(`[libs] corrupt cache (${label}): exit ${r.code} in ${r.ms} ms; stderr ${JSON.stringify(r.stderr.slice(0, 120))}`);
      assert.equal(r.code, 0, `${label}: ${r.stderr}`);
      assert.doesNotMatch(r.stderr, /RangeError|\n\s+at /, `${label}: no stack trace`);
      assert.match(r.stdout, new RegExp(SYMBOL), `${label}: the symbol is named again`);
      assert.deepEqual(readFileSync(file), good, `${label}: the cache file was written again`);
    }
  },
);
