// A minifier that inlines a function declaration where it is used leaves an anonymous function, which V8 names
// after where it now stands: terser turns markdown-it's `function inline(state)` into
// `const _rules$2=[["inline",function(state){…}],…]`, and V8 calls it and its neighbours `_rules$2`. Through the
// map the row sits at `function inline(` in the source: it must be called `inline`, not `_rules$2`. The bundle and
// its map are written here in that shape; node profiles it for real.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cli } from '../helpers/paths';
import type { JsonReport } from '../../src/core/exporters/json';

const dir = mkdtempSync(join(tmpdir(), 'nf-inferred-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const SOURCE = [
  'function inline(state) {',
  '  let s = 0;',
  '  for (let i = 0; i < state; i++) s += Math.sqrt(i);',
  '  return s;',
  '}',
  'async function* other(state) {',
  '  let s = 1;',
  '  for (let i = 0; i < state; i++) s = (s * ((i % 7) + 1)) % 1000003;',
  '  yield s;',
  '}',
  "const _rules = [['inline', inline], ['other', other]];",
  '',
].join('\n');

const RULES =
  'const _rules=[["inline",function(state){let s=0;for(let i=0;i<state;i++)s+=Math.sqrt(i);return s}],' +
  '["other",async function*(state){let s=1;for(let i=0;i<state;i++)s=(s*(i%7+1))%1000003;yield s}]];';
// The caller stays unoptimized, so each rule's samples are its own (not inlined into the loop).
const DRIVER =
  'async function run(){const end=Date.now()+1200;let x=0;while(Date.now()<end){x+=_rules[0][1](20000);' +
  'for await(const v of _rules[1][1](20000))x+=v}return x}%NeverOptimizeFunction(run);run().then(x=>console.log(x>0?"ok":"no"));';

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
function vlq(n: number): string {
  let v = n < 0 ? (-n << 1) | 1 : n << 1;
  let out = '';
  do {
    let d = v & 31;
    v >>>= 5;
    if (v) d |= 32;
    out += B64[d];
  } while (v);
  return out;
}

/** Segments [generated column, source line, source column] (0-based) of one generated line, as a map encodes them. */
function mappings(segs: [number, number, number][]): string {
  let col = 0;
  let line = 0;
  let scol = 0;
  const parts = segs.map(([c, l, s], i) => {
    const part = vlq(c - col) + vlq(0) + (i === 0 ? vlq(l) : vlq(l - line)) + vlq(s - scol);
    col = c;
    line = l;
    scol = s;
    return part;
  });
  return parts.join(',');
}

test('a function a minifier made anonymous is called by its declared name through the map, not the name V8 inferred', () => {
  const first = RULES.indexOf('function(state)');
  const second = RULES.indexOf('async function*(state)');
  const map = {
    version: 3,
    file: 'out.js',
    sources: ['rules.js'],
    names: [],
    mappings: mappings([
      [0, 10, 0],
      [first, 0, 0],
      [second, 5, 0],
    ]),
  };
  writeFileSync(join(dir, 'rules.js'), SOURCE);
  writeFileSync(join(dir, 'out.js'), `${RULES}\n${DRIVER}\n//# sourceMappingURL=out.js.map\n`);
  writeFileSync(join(dir, 'out.js.map'), JSON.stringify(map));
  const run = spawnSync(process.execPath, ['--allow-natives-syntax', '--cpu-prof', '--cpu-prof-dir', join(dir, 'p'), 'out.js'], {
    cwd: dir,
    encoding: 'utf8',
    timeout: 60_000,
  });
  assert.equal(run.stdout.trim(), 'ok', run.stderr);
  const prof = join(dir, 'p', readdirSync(join(dir, 'p')).find((f) => f.endsWith('.cpuprofile'))!);
  const r = spawnSync(process.execPath, [cli, 'report', prof, '--format', 'json', '--top', '100000'], {
    cwd: dir,
    encoding: 'utf8',
    timeout: 60_000,
  });
  assert.equal(r.status, 0, r.stderr);
  const j = JSON.parse(r.stdout) as JsonReport;
  const rows = j.functions.filter((f) => f.file === join(dir, 'rules.js'));
  const shown = rows.map((f) => `${f.name}@${f.line} ${f.self}`).join(', ');
  const inline = rows.find((f) => f.line === 1);
  const other = rows.find((f) => f.line === 6);
  assert.equal(inline?.name, 'inline', shown);
  assert.ok(inline.self > 0.1, shown);
  assert.equal(other?.name, 'other', shown);
  assert.ok(!rows.some((f) => f.name === '_rules'), shown);
});
