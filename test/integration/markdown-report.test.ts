// `report --format markdown`: what a user pastes into a pull request or hands to a coding assistant.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cli } from '../helpers/paths';
import { ZLIB_BATCH_LINES } from '../helpers/batchProgram';

test('report --format markdown of a real --prof run: the finding with its source line, the hot path through the user function, a table', () => {
  const dir = mkdtempSync(join(tmpdir(), 'nf-md-'));
  try {
    const source = ZLIB_BATCH_LINES;
    writeFileSync(join(dir, 'prog.js'), source.join('\n'));
    const run = spawnSync(process.execPath, ['--prof', 'prog.js'], { cwd: dir, encoding: 'utf8', timeout: 60_000 });
    assert.equal(run.status, 0, run.stderr);
    const log = join(dir, readdirSync(dir).find((n) => /^isolate-.*\.log$/.test(n))!);
    const r = spawnSync(process.execPath, [cli, 'report', log, '--format', 'markdown'], {
      encoding: 'utf8',
      env: { ...process.env, NODE_FLAME_LANG: 'en' },
    });
    assert.equal(r.status, 0, r.stderr);
    const md = r.stdout;
    const file = join(dir, 'prog.js');
    assert.match(md, /^### Node Flame: /);
    const findings = md.indexOf('#### Findings');
    const paths = md.indexOf('#### Hot paths');
    const table = md.indexOf('#### Heaviest functions (self)');
    assert.ok(findings > 0 && paths > findings && table > paths, 'findings first, then hot paths, then functions');
    // The finding names the call and quotes the line of the user's code that makes it.
    assert.match(md.slice(findings, paths), new RegExp(`\`batch-hot-call\` \\([\\d.]+ %\\) — \`${escape(file)}:6\``));
    assert.ok(md.slice(findings, paths).includes(`   6 | ${source[5]}`), md.slice(findings, paths));
    // The heaviest path goes through compressAll to zlib's deflate, and quotes compressAll's line.
    const first =
      md
        .slice(paths)
        .split('\n')
        .find((l) => /^1\. /.test(l)) ?? '';
    assert.match(first, new RegExp(`^1\\. [\\d.]+ % — .*compressAll ${escape(file)}:4:\\d+ → `), first);
    assert.ok(md.slice(paths, table).includes(`   4 | ${source[3]}`), md.slice(paths, table));
    assert.match(md.slice(table), /^\| Self \| Total \| Function \| Location \|$/m);
    assert.match(md.slice(table), /^\| [\d.]+ % \| [\d.]+ % \| deflate\\_slow \| {2}\|$/m);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
