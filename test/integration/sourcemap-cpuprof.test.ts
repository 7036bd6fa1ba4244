import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cli, repoRoot } from '../helpers/paths';
import { loadProfile } from '../../src/core/importers';
import { applySourceMaps, SourceMapCache } from '../../src/core/sourcemaps';
import { ProfileBuilder } from '../../src/core/model';
import type { JsonReport } from '../../src/core/exporters/json';

// esbuild's API cannot be bundled into this test, so it is loaded from the repo at run time.
const esbuild = createRequire(join(repoRoot, 'package.json'))('esbuild') as typeof import('esbuild');

const dir = mkdtempSync(join(tmpdir(), 'nf-srcmap-'));
test.after(() => rmSync(dir, { recursive: true, force: true }));

// Types and comments come first so the bundle's line numbers differ from the source's.
const HOT_TS = `// The hot path of this little program.
export interface Options {
  ms: number;
  seed: number;
}

export type Result = { iterations: number; acc: number };

export function crunch(opts: Options): Result {
  const end = Date.now() + opts.ms;
  let acc: number = opts.seed;
  let iterations = 0;
  while (Date.now() < end) {
    for (let i = 0; i < 100000; i++) {
      acc = (acc * 1103515245 + 12345) % 2147483647;
    }
    iterations++;
  }
  return { iterations, acc };
}
`;
const CRUNCH_LINE = 9;
const HOT_LINE = 15;
const MAIN_TS = `import { crunch } from './hot';
const r = crunch({ ms: 1000, seed: 7 });
console.log(r.iterations > 0 ? 'ok' : 'none');
`;

mkdirSync(join(dir, 'src'));
writeFileSync(join(dir, 'src', 'hot.ts'), HOT_TS);
writeFileSync(join(dir, 'src', 'main.ts'), MAIN_TS);

function report(file: string, ...args: string[]) {
  return spawnSync(process.execPath, [cli, 'report', file, ...args], { encoding: 'utf8', timeout: 60_000 });
}

test('a bundled TypeScript program profiled with --cpu-prof: the hot function at its .ts file and line', async () => {
  await esbuild.build({
    entryPoints: [join(dir, 'src', 'main.ts')],
    bundle: true,
    platform: 'node',
    sourcemap: true,
    outfile: join(dir, 'dist', 'app.js'),
    logLevel: 'silent',
  });
  const bundle = readFileSync(join(dir, 'dist', 'app.js'), 'utf8').split('\n');
  const genLine = bundle.findIndex((l) => l.includes('function crunch(')) + 1;
  assert.ok(genLine > 0 && genLine !== CRUNCH_LINE, 'the bundle moves crunch to another line');

  const profDir = join(dir, 'prof');
  const run = spawnSync(process.execPath, ['--cpu-prof', '--cpu-prof-dir', profDir, join(dir, 'dist', 'app.js')], {
    encoding: 'utf8',
    timeout: 60_000,
  });
  assert.equal(run.status, 0, run.stderr);
  const prof = join(profDir, readdirSync(profDir).find((f) => f.endsWith('.cpuprofile'))!);

  const r = report(prof, '--format', 'json', '--top', '100000');
  assert.equal(r.status, 0, r.stderr);
  const j = JSON.parse(r.stdout) as JsonReport;
  assert.equal(j.format, 'cpuprofile');
  assert.ok(j.samples > 100, `samples ${j.samples}`);
  assert.ok(j.durationMs! >= 900, `durationMs ${j.durationMs}`);
  const top = j.functions[0];
  assert.equal(top.name, 'crunch');
  assert.equal(top.file, join(dir, 'src', 'hot.ts'));
  assert.equal(top.line, CRUNCH_LINE);
  assert.equal(top.category, 'app');
  assert.ok(top.self > 0.5, `crunch self ${top.self}`);

  // In-process: the generated location is kept and line heat moved to the .ts lines.
  const p = await loadProfile(prof);
  const crunch = p.frames.find((f) => f.name === 'crunch')!;
  assert.equal(crunch.generated?.file, join(dir, 'dist', 'app.js'));
  assert.equal(crunch.generated?.line, genLine);
  const heat = p.lineHits.get(join(dir, 'src', 'hot.ts'));
  assert.ok(heat, 'line hits on hot.ts');
  const hottest = [...heat!].sort((a, b) => b[1].self - a[1].self)[0][0];
  assert.ok(hottest >= 13 && hottest <= HOT_LINE + 1, `hottest line ${hottest} is in the loop`);
  assert.ok(
    !p.lineHits.has(join(dir, 'dist', 'app.js')) ||
      [...p.lineHits.get(join(dir, 'dist', 'app.js'))!.values()].every((h) => h.self < heat!.get(hottest)!.self),
  );

  // Without source maps the same profile points into the bundle.
  const raw = JSON.parse(report(prof, '--format', 'json', '--top', '100000', '--no-source-maps').stdout) as JsonReport;
  assert.equal(raw.functions[0].file, join(dir, 'dist', 'app.js'));
  assert.equal(raw.functions[0].line, genLine);

  const text = report(prof, '--format', 'text');
  assert.equal(text.status, 0);
  assert.match(text.stdout, /\[JavaScript\]:\n.*\n\s+\d+\s+\d+\.\d%\s+\d+\.\d%\s+crunch .*hot\.ts:9:\d+\n/);
});

test('inline data-URI maps, and no mapping when the original source is not on disk', async () => {
  await esbuild.build({
    entryPoints: [join(dir, 'src', 'main.ts')],
    bundle: true,
    platform: 'node',
    sourcemap: 'inline',
    outfile: join(dir, 'inline', 'app.js'),
    logLevel: 'silent',
  });
  const js = join(dir, 'inline', 'app.js');
  const lines = readFileSync(js, 'utf8').split('\n');
  const genLine = lines.findIndex((l) => l.includes('function crunch(')) + 1;
  const genCol = lines[genLine - 1].indexOf('crunch(') + 'crunch'.length + 1;
  // The same bundle with a map that does not carry the sources' text.
  const bare = join(dir, 'inline-bare', 'app.js');
  await esbuild.build({
    entryPoints: [join(dir, 'src', 'main.ts')],
    bundle: true,
    platform: 'node',
    sourcemap: 'inline',
    sourcesContent: false,
    outfile: bare,
    logLevel: 'silent',
  });
  const build = (script = js) => {
    const b = new ProfileBuilder('cpuprofile');
    const f = b.frame({ name: 'crunch', file: script, line: genLine, column: genCol, category: 'app' });
    b.sample([f], 10);
    b.lineHit(script, genLine + 5, 7, 7);
    return b.build();
  };
  const cache = new SourceMapCache();
  const p = build();
  await applySourceMaps(p, cache);
  assert.deepEqual([p.frames[0].file, p.frames[0].line], [join(dir, 'src', 'hot.ts'), CRUNCH_LINE]);
  assert.deepEqual(p.frames[0].generated, { file: js, line: genLine, column: genCol });
  assert.equal(p.tree.weight, 10);
  assert.deepEqual([...p.lineHits.keys()], [join(dir, 'src', 'hot.ts')]);

  // The same cache notices a rebuilt script: here one that lost its map comment.
  const code = readFileSync(js, 'utf8');
  writeFileSync(js, code.replace(/\/\/# sourceMappingURL=.*$/m, ''));
  const rebuilt = build();
  await applySourceMaps(rebuilt, cache);
  assert.equal(rebuilt.frames[0].file, js);
  writeFileSync(js, code);

  rmSync(join(dir, 'src', 'hot.ts'));
  try {
    // The map carries the source's text (sourcesContent): the frame still names it, for reports and the read-only editor.
    const kept = build();
    await applySourceMaps(kept, new SourceMapCache());
    assert.deepEqual([kept.frames[0].file, kept.frames[0].line], [join(dir, 'src', 'hot.ts'), CRUNCH_LINE]);
    // Without sourcesContent there is nothing to show: the generated position stays.
    const q = build(bare);
    await applySourceMaps(q, new SourceMapCache());
    assert.deepEqual([q.frames[0].file, q.frames[0].line, q.frames[0].generated], [bare, genLine, undefined]);
    assert.deepEqual([...q.lineHits.keys()], [bare]);
  } finally {
    writeFileSync(join(dir, 'src', 'hot.ts'), HOT_TS);
  }
});

test('folded input through the CLI: the issue example', () => {
  const f = join(dir, 'stacks.txt');
  writeFileSync(f, 'main;a;b 30\nmain;a;c 10\nmain;d 60\n');
  const r = report(f, '--format', 'json', '--top', '100000');
  assert.equal(r.status, 0, r.stderr);
  const j = JSON.parse(r.stdout) as JsonReport;
  assert.equal(j.format, 'folded');
  assert.equal(j.samples, 100);
  assert.equal(j.durationMs, null);
  assert.equal(j.attributed, 1);
  const fn = (name: string) => j.functions.find((x) => x.name === name)!;
  assert.equal(fn('d').self, 0.6);
  assert.equal(fn('a').total, 0.4);
  assert.equal(j.functions[0].name, 'd');
  const out = join(dir, 'out.folded');
  assert.equal(report(f, '--format', 'folded', '-o', out).status, 0);
  assert.equal(readFileSync(out, 'utf8'), 'main;a;b 30\nmain;a;c 10\nmain;d 60\n');
});

test('bad input: exit 2 and one line naming the file and the problem', () => {
  const good = JSON.stringify({
    nodes: [{ id: 1, callFrame: { functionName: '(root)', scriptId: '0', url: '', lineNumber: -1, columnNumber: -1 }, hitCount: 1 }],
    startTime: 0,
    endTime: 1000,
    samples: [1],
    timeDeltas: [1000],
  });
  const cases: [string, string | Buffer, RegExp][] = [
    ['truncated.cpuprofile', good.slice(0, good.length - 20), /truncated or corrupt/],
    ['empty.cpuprofile', '', /empty/],
    ['garbage.bin', Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919 + 13) % 256)), /not a profile/],
  ];
  for (const [name, content, why] of cases) {
    const f = join(dir, name);
    writeFileSync(f, content);
    const t0 = Date.now();
    const r = report(f, '--format', 'json', '--top', '100000');
    assert.equal(r.status, 2, `${name}: ${r.stderr}`);
    assert.equal(r.stdout, '');
    const lines = r.stderr.trimEnd().split('\n');
    assert.equal(lines.length, 1, `${name}: one line, got ${r.stderr}`);
    assert.ok(lines[0].includes(f), `${name}: names the file`);
    assert.match(lines[0], why);
    assert.ok(Date.now() - t0 < 10_000, `${name}: no hang`);
  }
  const unknown = report(join(dir, 'stacks.txt'), '--format', 'pdf');
  assert.equal(unknown.status, 2);
  assert.match(unknown.stderr, /unknown format "pdf".*text, json, markdown, folded/);
});
