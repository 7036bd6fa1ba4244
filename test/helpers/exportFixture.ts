// The profile the export tests share: a real `node --prof` run of two hot loops, and a folded file with hostile
// names. The integration test checks the files; the e2e test opens the HTML pages in Chromium.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { functionStats, type Profile } from '../../src/core/model';
import { cli } from './paths';

const PROGRAM = `
const crypto = require('crypto');
function hashLoop() { for (let i = 0; i < 40; i++) crypto.pbkdf2Sync('secret', 'salt', 2000, 64, 'sha512'); }
function sortLoop() { const a = []; for (let i = 0; i < 60000; i++) a.push(Math.random()); a.sort((x, y) => x - y); }
function main() { const end = Date.now() + 1500; while (Date.now() < end) { hashLoop(); sortLoop(); } }
main();
`;

export const HOSTILE = ['<img src=x onerror=alert(1)>', '</script><script>alert(1)</script>'];

/** Runs the program under `node --prof` in `dir`; the tick log's path. */
export function recordProfLog(dir: string): string {
  writeFileSync(join(dir, 'prog.js'), PROGRAM);
  const run = spawnSync(process.execPath, ['--prof', 'prog.js'], { cwd: dir, encoding: 'utf8', timeout: 30_000 });
  assert.equal(run.status, 0, run.stderr);
  return join(dir, readdirSync(dir).find((f) => /^isolate-.*-v8\.log$/.test(f))!);
}

/** A folded profile whose function names are markup and script. */
export function writeHostileFolded(file: string): void {
  writeFileSync(file, `main;${HOSTILE[0]} 30\nmain;${HOSTILE[1]};leaf 20\nmain;other 10\n`);
}

/** Self shares of the heaviest functions by name (idle and program roots left out). */
export function topShares(p: Profile, n: number): Map<string, number> {
  const all = p.tree.weight;
  const byName = new Map<string, number>();
  for (const s of functionStats(p.tree, p.frames.length)) {
    const f = p.frames[s.frame];
    if (f.category === 'idle' || f.category === 'program') continue;
    byName.set(f.name, (byName.get(f.name) ?? 0) + s.self / all);
  }
  return new Map([...byName].sort((a, b) => b[1] - a[1]).slice(0, n));
}

/** `node-flame report <file> --format <format> -o <out>`, which must succeed. */
export function exportWithCli(file: string, format: string, out: string): void {
  const r = spawnSync(process.execPath, [cli, 'report', file, '--format', format, '-o', out], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
}
