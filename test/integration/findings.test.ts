import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cli } from '../helpers/paths';
import { expressExample, profileExpressApp } from '../helpers/expressApp';
import type { JsonFinding } from '../../src/core/findings';
import { ZLIB_BATCH_LINES } from '../helpers/batchProgram';

const dirs: string[] = [];
test.after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'nf-findings-'));
  dirs.push(d);
  return d;
}

function report(log: string, format: 'json' | 'text' = 'json'): string {
  const r = spawnSync(process.execPath, [cli, 'report', log, '--format', format], {
    encoding: 'utf8',
    env: { ...process.env, NODE_FLAME_LANG: 'en' },
  });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout;
}

function findings(log: string): JsonFinding[] {
  return (JSON.parse(report(log)) as { findings: JsonFinding[] }).findings;
}

/** Runs `source` as prog.js under `node --prof` (plus `flags`) and returns its tick log. */
function profileProgram(source: string, flags: string[] = []): { log: string; file: string } {
  const dir = tempDir();
  const file = join(dir, 'prog.js');
  writeFileSync(file, source);
  const r = spawnSync(process.execPath, ['--prof', ...flags, 'prog.js'], { cwd: dir, encoding: 'utf8', timeout: 60000 });
  assert.equal(r.status, 0, r.stderr);
  const log = readdirSync(dir).find((n) => /^isolate-.*\.log$/.test(n));
  assert.ok(log, 'no tick log');
  return { log: join(dir, log), file };
}

function lineOf(file: string, text: string, after = 0): number {
  const i = readFileSync(file, 'utf8')
    .split('\n')
    .findIndex((l, n) => n >= after && l.includes(text));
  assert.ok(i >= 0, `${text} not in ${file}`);
  return i + 1;
}

const load = { requests: 60, connections: 4 } as const;

test(
  'the guide app under --prof: a blocking-call finding at the /auth handler’s pbkdf2Sync line, suggesting crypto.pbkdf2; the async app has none',
  { timeout: 180_000 },
  async () => {
    const ws = tempDir();
    copyFileSync(join(expressExample, 'app.js'), join(ws, 'app.js'));
    const log = await profileExpressApp({ cwd: ws, profiler: 'prof', load });
    const app = join(ws, 'app.js');
    const line = lineOf(app, 'crypto.pbkdf2Sync(', lineOf(app, "app.get('/auth'"));
    const found = findings(log);
    const blocking = found.filter((f) => f.rule === 'blocking-sync');
    assert.equal(blocking.length, 1, JSON.stringify(found, null, 1));
    const [f] = blocking;
    assert.equal(f.file, app);
    assert.equal(f.line, line, `pbkdf2Sync is called at line ${line}`);
    assert.equal(f.severity, 'warning');
    assert.ok(f.share > 0.2 && f.share <= 1, `share ${f.share}`);
    assert.match(f.message, /crypto\.pbkdf2Sync/);
    assert.match(f.message, /asynchronous crypto\.pbkdf2 /);
    assert.match(f.message, new RegExp(`${(f.share * 100).toFixed(1).replace('.', '\\.')}%`));
    // The text report leads with the findings.
    const text = report(log, 'text').split('\n');
    assert.equal(text[0].trim(), '[Findings]:');
    assert.ok(text[1].includes(`blocking-sync ${app}:${line}`), text.slice(0, 3).join('\n'));

    const asyncWs = tempDir();
    copyFileSync(join(expressExample, 'app-async.js'), join(asyncWs, 'app.js'));
    const asyncLog = await profileExpressApp({ cwd: asyncWs, profiler: 'prof', load });
    const asyncFound = findings(asyncLog);
    assert.deepEqual(
      asyncFound.filter((x) => x.rule === 'blocking-sync'),
      [],
    );
  },
);

test('a zlib-heavy program: a finding naming deflateSync at its line', { timeout: 60_000 }, () => {
  const { log, file } = profileProgram(`const zlib = require('zlib');
const data = Buffer.from('hello world '.repeat(20000) + Math.random());
const until = Date.now() + 1500;
function compress() {
  const out = zlib.deflateSync(data, { level: 9 });
  if (Date.now() < until) setImmediate(compress);
  else console.log(out.length);
}
setImmediate(compress);
`);
  const f = findings(log).find((x) => x.rule === 'blocking-sync');
  assert.ok(f, 'no blocking-sync finding');
  assert.match(f.message, /zlib\.deflateSync/);
  assert.match(f.message, /zlib\.deflate /);
  assert.equal(f.file, file);
  assert.equal(f.line, lineOf(file, 'zlib.deflateSync('));
  assert.ok(f.share > 0.3, `share ${f.share}`);
});

test('an idle program: the idle finding, pointing at nodeFlame.loadCommand', { timeout: 60_000 }, () => {
  const { log } = profileProgram(`setTimeout(() => console.log('done'), 3000);\n`);
  const f = findings(log).find((x) => x.rule === 'mostly-idle');
  assert.ok(f, JSON.stringify(findings(log)));
  assert.ok(f.share >= 0.75, `idle ${f.share}`);
  assert.match(f.message, /nodeFlame\.loadCommand/);
  assert.equal(f.file, null);
});

test('a hot function that keeps deoptimizing (--prof --log-deopt): a deopt finding with its reason and tiers', { timeout: 60_000 }, () => {
  const { log, file } = profileProgram(
    `function add(a, b) { return a.x + b.x; }
let s = 0;
const shapes = [() => ({ x: 1 }), () => ({ x: 1, y: 2 }), () => ({ y: 1, x: 2 }), () => ({ x: 'a' }), () => ({ z: 1, x: 3 }), () => ({ w: 1, x: 1.5 })];
const t0 = Date.now();
let k = 0;
while (Date.now() - t0 < 1500) {
  const mk = shapes[Math.min(shapes.length - 1, Math.floor(k / 200000))];
  for (let i = 0; i < 1000; i++) s = add(mk(), mk());
  k += 1000;
}
console.log(typeof s);
`,
    ['--log-deopt', '--redirect-code-traces', '--redirect-code-traces-to=traces.txt'],
  );
  const deopts = findings(log).filter((x) => x.rule === 'deopt-loop');
  assert.ok(deopts.length > 0, JSON.stringify(findings(log)));
  const f = deopts.find((x) => /deoptimized add /.test(x.message)) ?? deopts[0];
  assert.match(f.message, /deoptimized \S+ \d+ times \(mostly "[^"]+"\)/);
  assert.match(deopts.map((x) => x.message).join('\n'), /"wrong map"/);
  assert.match(f.message, /TurboFan/);
  assert.equal(f.file, file);
  assert.ok(f.line && f.line >= 1 && f.line <= 11, `line ${f.line}`);
});

test('a batch program compressing at top level: a batch-hot-call finding names zlib.deflateSync at the line that calls it, in batch words', () => {
  const { log, file } = profileProgram(ZLIB_BATCH_LINES.join('\n'));
  const list = findings(log);
  const batch = list.find((f) => f.rule === 'batch-hot-call');
  assert.ok(batch, JSON.stringify(list, null, 1));
  assert.match(batch.message, /^zlib\.deflateSync takes .* before the event loop .*compression level/);
  assert.equal(batch.file, file);
  assert.equal(batch.line, lineOf(file, 'zlib.deflateSync('));
  assert.ok(batch.share > 0.3, `deflate is most of the run: ${batch.share}`);
  assert.ok(!list.some((f) => f.rule === 'blocking-sync'), 'no event-loop wording for a batch job');
});
