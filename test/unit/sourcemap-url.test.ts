import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { applySourceMaps, mapReference, SourceMapCache } from '../../src/core/sourcemaps';
import { ProfileBuilder, type Profile } from '../../src/core/model';
import { seededRandom } from '../../src/core/seededRandom';

// The regex the scan replaced, kept as the oracle for ordinary inputs (it is quadratic on long runs of spaces).
function regexReference(code: string): string | null {
  const re = /(?:\/\/|\/\*)[#@][ \t]+sourceMappingURL=([^\s'"]+?)[ \t]*(?:\*\/)?[ \t]*$/gm;
  let last: string | null = null;
  re.lastIndex = Math.max(0, code.lastIndexOf('sourceMappingURL=') - 16);
  for (let m = re.exec(code); m; m = re.exec(code)) last = m[1];
  return last;
}

test('mapReference: the comment forms it reads, and what it leaves alone', () => {
  const cases: [string, string | null][] = [
    ['x()\n//# sourceMappingURL=a.js.map', 'a.js.map'],
    ['x()\n//# sourceMappingURL=a.js.map\n', 'a.js.map'],
    ['x()\r\n//# sourceMappingURL=a.js.map \t\r\n', 'a.js.map'],
    ['/*# sourceMappingURL=a.map */', 'a.map'],
    ['/*# sourceMappingURL=a.map*/', 'a.map'],
    ['/*# sourceMappingURL=a.map*/  ', 'a.map'],
    ['//@ sourceMappingURL=old.map', 'old.map'],
    ['//#\tsourceMappingURL=data:application/json;base64,e30=', 'data:application/json;base64,e30='],
    ['//# sourceMappingURL=a.map x', null],
    ['const s = "//# sourceMappingURL=" + u;', null],
    ['//#sourceMappingURL=a.map', null],
    ['//# sourceMappingURL=', null],
    ['no comment here', null],
    ['//# sourceMappingURL=first.map\n//# sourceMappingURL=second.map', 'second.map'],
  ];
  for (const [code, want] of cases) {
    assert.equal(mapReference(code), want, JSON.stringify(code));
    assert.equal(regexReference(code), want, `oracle: ${JSON.stringify(code)}`);
  }
});

test('mapReference agrees with the old regex on 20,000 random short scripts', () => {
  const parts = ['//', '/*', '#', '@', ' ', '\t', 'sourceMappingURL=', 'a', '.map', '*/', '\n', '\r', '"', "'", 'x', '/', '*'];
  // mulberry32: an LCG's low bits in doubles repeat with a short period (rnd(2) was nearly constant).
  const r = seededRandom(7);
  const rnd = (n: number) => Math.floor(r() * n);
  for (let i = 0; i < 20_000; i++) {
    let code = rnd(2) ? 'f()\n' : '';
    const n = 2 + rnd(10);
    for (let k = 0; k < n; k++) code += parts[rnd(parts.length)];
    if (rnd(2)) code = code.replace(/^/, '//# sourceMappingURL=');
    assert.equal(mapReference(code), regexReference(code), JSON.stringify(code));
  }
});

function profileIn(script: string): Profile {
  const b = new ProfileBuilder('cpuprofile', { durationMs: null, mode: 'cpu-prof', source: script });
  const f = b.frame({ name: 'work', file: script, line: 1, column: 1, category: 'app' });
  b.sample([f], 1);
  return b.build();
}

async function median(f: () => Promise<void>, n = 7): Promise<number> {
  const t: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await f();
    t.push(performance.now() - t0);
  }
  return t.sort((a, b) => a - b)[n >> 1];
}

test('a 200 KB script ending in a sourceMappingURL, 200K spaces and x is scanned in linear time', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'nf-smurl-'));
  try {
    const hostile = join(dir, 'hostile.js');
    const normal = join(dir, 'normal.js');
    writeFileSync(hostile, `function work() {}\n//# sourceMappingURL=a${' '.repeat(200_000)}x`);
    const size = 200_000 + 40;
    let code = '';
    while (code.length < size - 40) code += `function f${code.length}(a, b) { return a + b; }\n`;
    writeFileSync(normal, `${code}//# sourceMappingURL=normal.js.map\n`);
    writeFileSync(join(dir, 'normal.js.map'), JSON.stringify({ version: 3, sources: ['normal.ts'], names: [], mappings: 'AAAA' }));
    const run = (script: string) => async () => void (await applySourceMaps(profileIn(script), new SourceMapCache()));
    await run(normal)();
    const tNormal = await median(run(normal));
    const tHostile = await median(run(hostile));
    const ratio = tHostile / tNormal;
    console.log(
      `[smurl] 200 KB scripts through applySourceMaps: hostile ${tHostile.toFixed(2)} ms, normal ${tNormal.toFixed(2)} ms, ratio ${ratio.toFixed(2)}`,
    );
    // The scan alone on 4× the run of spaces costs about 4× (linear), not 16× (quadratic).
    const scan = (n: number) => {
      const s = `//# sourceMappingURL=a${' '.repeat(n)}x`;
      mapReference(s);
      let best = Infinity;
      for (let r = 0; r < 5; r++) {
        const t0 = performance.now();
        for (let i = 0; i < 10; i++) mapReference(s);
        best = Math.min(best, performance.now() - t0);
      }
      return best;
    };
    const s1 = scan(1_000_000);
    const s4 = scan(4_000_000);
    console.log(`[smurl] scan ×10: 1M spaces ${s1.toFixed(1)} ms, 4M ${s4.toFixed(1)} ms (×${(s4 / s1).toFixed(2)})`);
    assert.ok(ratio < 4 || tHostile < 5, `hostile/normal = ${ratio.toFixed(2)}`);
    assert.ok(s4 / s1 < 8 || s4 < 20, `4× the spaces multiplied the scan by ${(s4 / s1).toFixed(2)}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
