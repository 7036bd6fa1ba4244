// @datadog/pprof (what Datadog's agent and @pyroscope/nodejs profile with), installed from npm for the tests
// that read its profiles, and a small real program it profiles.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

const installs = new Map<string, Promise<{ dir: string } | { skip: string }>>();

/** @datadog/pprof from npm into `<under>/dd` (it ships prebuilt binaries): the package folder, or why it could not. */
export function datadogPprof(under: string): Promise<{ dir: string } | { skip: string }> {
  let p = installs.get(under);
  if (!p) {
    p = (async () => {
      const dir = join(under, 'dd');
      const r = spawnSync('npm', ['install', '--no-save', '--no-audit', '--no-fund', '--prefix', dir, '@datadog/pprof'], {
        encoding: 'utf8',
        timeout: 300_000,
      });
      if (r.status !== 0)
        return {
          skip: `npm could not install @datadog/pprof here (${r.status ?? r.error?.message}): ${r.stderr.split('\n').slice(-5).join(' ')}`,
        };
      return { dir: join(dir, 'node_modules', '@datadog', 'pprof') };
    })();
    installs.set(under, p);
  }
  return p;
}

/** A program with one hot and one cold function, profiled by @datadog/pprof in-process: wall time and heap. */
export const HOT = `'use strict';
const pprof = require(process.env.DD_PPROF);
const fs = require('fs');

function hotLoop(n) {
  let x = 0;
  for (let i = 0; i < n; i++) x += Math.sqrt(i) * Math.sin(i);
  return x;
}

function coldLoop(n) {
  let x = 0;
  for (let i = 0; i < n; i++) x += i;
  return x;
}

async function main() {
  pprof.heap.start(16 * 1024, 64);
  const done = pprof.time.profile({ durationMillis: 1500 });
  const end = Date.now() + 1200;
  const keep = [];
  while (Date.now() < end) {
    hotLoop(2e5);
    coldLoop(2e4);
    keep.push(new Array(1000).fill(1));
    await new Promise((r) => setImmediate(r));
  }
  fs.writeFileSync('wall.pb.gz', await pprof.encode(await done));
  fs.writeFileSync('heap.pb.gz', await pprof.encode(await pprof.heap.profile()));
  console.log(keep.length);
}
main();
`;

/** Writes HOT as `<dir>/hot.js` and runs it with the installed profiler: its wall and heap profiles and where hotLoop starts. */
export function runHotProgram(ddPprof: string, dir: string): { program: string; hotLine: number; wall: string; heap: string } {
  const program = join(dir, 'hot.js');
  writeFileSync(program, HOT);
  const run = spawnSync(process.execPath, [program], { cwd: dir, env: { ...process.env, DD_PPROF: ddPprof }, encoding: 'utf8' });
  assert.equal(run.status, 0, run.stderr);
  return {
    program,
    hotLine: HOT.split('\n').findIndex((l) => l.startsWith('function hotLoop')) + 1,
    wall: join(dir, 'wall.pb.gz'),
    heap: join(dir, 'heap.pb.gz'),
  };
}
