// A repository controls `.nodeflame/` and everything in it: a symlink spray there (every temp name a writer
// could pick, the destinations, the sub-folders) must not carry a single byte outside the workspace, for
// every writer into run folders. A full disk leaves no temp or empty file behind.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import {
  closeSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRunDir, RUNS_DIR, runFolderName, updateRunJson, writeRunJson, type RunInfo } from '../../src/launch/run/runFolder';
import { saveSummary } from '../../src/extension/history/runs';
import { captureMaps } from '../../src/launch/processTree';
import { APPEND_NOFOLLOW, createNewFile, createNewFileSync, replaceFile, replaceFileSync } from '../../src/core/safeWrite';
import { LIVE_MARKER } from '../../src/launch/run/runLiveness';
import { RUN_DIR_ENV } from '../../src/launch/run/processRecords';
import { CPU_PROF_ENV } from '../../src/launch/preload/cpuProfile';
import { repoRoot } from '../helpers/paths';
import { runCli } from '../helpers/cli';

const root = mkdtempSync(join(tmpdir(), 'nf-spray-'));
after(() => rmSync(root, { recursive: true, force: true }));

const PID_MAX = Number(readFileSync('/proc/sys/kernel/pid_max', 'utf8'));
const SPRAYED_PIDS = Math.min(PID_MAX, 32768);

/** A file outside the workspace the spray points at, and how it looked before. */
function outsideFiles(): { dir: string; snapshot: () => string } {
  const dir = mkdtempSync(join(root, 'outside-'));
  writeFileSync(join(dir, 'target'), 'original\n');
  writeFileSync(join(dir, 'target.json'), '{"a": 1}\n');
  return {
    dir,
    snapshot: () =>
      readdirSync(dir)
        .sort()
        .map((n) => `${n}:${readFileSync(join(dir, n), 'utf8')}`)
        .join('|'),
  };
}

/** Every name in a folder tree with its kind, size and link target: what a writer may have changed. */
function snapshot(dir: string): string {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .sort()
    .map((n) => {
      const st = lstatSync(join(dir, n));
      return `${n}:${st.isSymbolicLink() ? `->${readlinkSync(join(dir, n))}` : st.isDirectory() ? 'dir' : `${st.size}:${readFileSync(join(dir, n), 'utf8')}`}`;
    })
    .join('\n');
}

function sprayedRun(out: string): string {
  const ws = mkdtempSync(join(root, 'ws-'));
  const run = join(ws, RUNS_DIR, '20260101-120000-prof');
  mkdirSync(run, { recursive: true });
  writeFileSync(join(run, 'run.json'), JSON.stringify({ version: 1, mode: 'prof', profiles: [] }));
  // Every temp name the old writer used (run.json.<pid>.tmp), a dangling link (it creates the target) or not.
  for (let pid = 1; pid <= SPRAYED_PIDS; pid++) symlinkSync(join(out, pid % 2 ? 'target' : `new-${pid}`), join(run, `run.json.${pid}.tmp`));
  symlinkSync(join(out, 'gitignore'), join(ws, RUNS_DIR, '.gitignore'));
  return run;
}

test('a symlink spray in a run folder: the history cache, run.json and every safe writer write nothing outside', async () => {
  const out = outsideFiles();
  const before = out.snapshot();
  const run = sprayedRun(out.dir);
  const summary = { samples: 10, topFunction: { name: 'hot', file: '/a.js', line: 1, self: 0.5 } };

  // Restricted Mode: not one write into the run folder.
  const untouched = snapshot(run);
  assert.equal(await saveSummary(run, summary, false), false);
  assert.equal(snapshot(run), untouched, 'an untrusted workspace gets no write at all');

  // Trusted: the summary lands in run.json, through a fresh temp name, and the spray is left as it was.
  const t0 = Date.now();
  assert.equal(await saveSummary(run, summary, true), true);
  const ms = Date.now() - t0;
  assert.deepEqual(JSON.parse(readFileSync(join(run, 'run.json'), 'utf8')).summary, summary);
  assert.equal(readdirSync(run).filter((n) => n.endsWith('.tmp')).length, SPRAYED_PIDS, 'no temp file left, no symlink replaced');
  assert.ok(lstatSync(join(run, `run.json.${process.pid}.tmp`)).isSymbolicLink());

  // run.json itself a symlink to a (JSON) file outside: refused, the file keeps its text.
  rmSync(join(run, 'run.json'));
  symlinkSync(join(out.dir, 'target.json'), join(run, 'run.json'));
  await assert.rejects(writeRunJson(run, { version: 1 } as RunInfo), /symbolic link/);
  await assert.rejects(updateRunJson(run, { durationMs: 1 }));
  await assert.rejects(saveSummary(run, summary, true));

  // A run folder that is itself a symlink to a folder outside: not written.
  const linked = join(run, '..', '20260101-130000-prof');
  symlinkSync(out.dir, linked);
  assert.equal(await saveSummary(linked, summary, true), false);

  // A new run folder: .gitignore (a dangling symlink) is not created through; a folder pre-made under the
  // name of this very second is not reused.
  const now = new Date();
  mkdirSync(join(run, '..', runFolderName('prof', now)), { recursive: true });
  const fresh = createRunDir(join(run, '..'), 'prof', now);
  assert.match(fresh, /-prof-2$/);
  assert.deepEqual(readdirSync(fresh), []);

  // /proc maps copies, new files, replaced files and appends: never through a symlink.
  symlinkSync(join(out.dir, 'target'), join(fresh, 'proc-maps-1.txt'));
  assert.equal(await captureMaps(process.pid, join(fresh, 'proc-maps-1.txt')), false);
  for (const [name, write] of [
    ['a', (p: string) => createNewFileSync(p, 'x')],
    ['b', (p: string) => replaceFileSync(p, 'x')],
    ['c', (p: string) => closeSync(openSync(p, APPEND_NOFOLLOW))],
  ] as const) {
    symlinkSync(join(out.dir, name === 'c' ? 'target' : `made-${name}`), join(fresh, name));
    assert.throws(() => write(join(fresh, name)), `${name} refused`);
  }
  await assert.rejects(createNewFile(join(fresh, 'a'), 'x'));
  await assert.rejects(replaceFile(join(fresh, 'b'), 'x'));

  assert.equal(out.snapshot(), before, 'the folder outside the workspace is as it was');
  console.log(
    `[spray] ${SPRAYED_PIDS} run.json.<pid>.tmp symlinks (pid_max ${PID_MAX}): summary cached in ${ms} ms through a fresh temp name; 0 bytes outside; symlinked run.json, run folder, .gitignore, maps, appends all refused`,
  );
});

test('preloaded processes: a sprayed or finished run folder gets nothing from them', { timeout: 60_000 }, () => {
  const out = outsideFiles();
  const before = out.snapshot();
  const run = sprayedRun(out.dir);
  // The records' folder a symlink to outside, and the per-pid names of the next few thousand pids.
  symlinkSync(out.dir, join(run, 'processes'));
  const next = Math.min(process.pid + 4000, PID_MAX);
  for (let pid = process.pid; pid < next; pid++) {
    symlinkSync(join(out.dir, 'target'), join(run, `loop-${pid}.jsonl`));
    symlinkSync(join(out.dir, `maps-${pid}`), join(run, `proc-maps-${pid}.txt`));
  }
  const preload = join(repoRoot, 'dist', 'preload-stop.js');
  const script = 'const e = Date.now() + 1300; while (Date.now() < e);';
  const env = { ...process.env, [RUN_DIR_ENV]: run, [CPU_PROF_ENV]: '1' };
  // Finished (no marker): not one name added.
  const finished = snapshot(run);
  const a = spawnSync(process.execPath, ['-r', preload, '-e', script], { env, encoding: 'utf8' });
  assert.equal(a.status, 0, a.stderr);
  assert.equal(snapshot(run), finished, 'a finished run gets no write');
  // Live (marker there): the sprayed names are refused, the app runs on and exits 0.
  writeFileSync(join(run, LIVE_MARKER), '1\n');
  const b = spawnSync(process.execPath, ['-r', preload, '-e', `${script} console.log(process.pid)`], { env, encoding: 'utf8' });
  assert.equal(b.status, 0, b.stderr);
  const pid = Number(b.stdout.trim());
  assert.equal(b.stderr, '', 'no stack trace from a refused write');
  assert.equal(out.snapshot(), before, 'nothing reached the folder outside');
  const cpu = readdirSync(run).filter((n) => n.endsWith('.cpuprofile'));
  console.log(
    `[spray] preloaded child pid ${pid} (${pid < next ? 'inside' : 'outside'} the sprayed range): ${cpu.length} CPU profile written as a new file, records and loop file refused, 0 bytes outside`,
  );
  assert.equal(cpu.length, 1, 'its own new file is still written');
});

/** A 64 KiB tmpfs (root only), or undefined. */
function tinyDisk(): string | undefined {
  if (process.platform !== 'linux' || process.getuid?.() !== 0) return undefined;
  const dir = mkdtempSync(join(root, 'tiny-'));
  return spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', dir]).status === 0 ? dir : undefined;
}

test('a full disk: run.json writes fail with ENOSPC and leave no temp or empty file', async (t) => {
  const disk = tinyDisk();
  if (!disk) return t.skip('needs root to mount a small tmpfs');
  try {
    const run = join(disk, RUNS_DIR, '20260101-120000-prof');
    mkdirSync(run, { recursive: true });
    await writeRunJson(run, { version: 1, mode: 'prof', profiles: [] } as unknown as RunInfo);
    const small = readFileSync(join(run, 'run.json'), 'utf8');
    const huge = { version: 1, mode: 'prof', profiles: [], error: 'x'.repeat(200_000) } as unknown as RunInfo;
    await assert.rejects(writeRunJson(run, huge), (e: NodeJS.ErrnoException) => e.code === 'ENOSPC');
    assert.throws(
      () => replaceFileSync(join(run, 'run.json'), JSON.stringify(huge)),
      (e: NodeJS.ErrnoException) => e.code === 'ENOSPC',
    );
    await assert.rejects(
      createNewFile(join(run, 'profile.cpuprofile'), 'y'.repeat(200_000)),
      (e: NodeJS.ErrnoException) => e.code === 'ENOSPC',
    );
    assert.deepEqual(readdirSync(run), ['run.json'], 'no temp file, no empty file');
    assert.equal(readFileSync(join(run, 'run.json'), 'utf8'), small, 'the old run.json is whole');
    assert.ok(statSync(join(run, 'run.json')).size > 0);
    console.log(`[spray] 64 KiB disk: 200 KB run.json → ENOSPC, folder holds ${JSON.stringify(readdirSync(run))}`);
  } finally {
    spawnSync('umount', [disk]);
  }
  assert.ok(!existsSync(join(disk, RUNS_DIR)));
});

test('a full disk under a real run: one line saying so, exit 1, no empty or temp file', { timeout: 90_000 }, async (t) => {
  const disk = tinyDisk();
  if (!disk) return t.skip('needs root to mount a small tmpfs');
  try {
    const app = join(root, 'busy.js');
    writeFileSync(
      app,
      'function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }\nconst e = Date.now() + 800; while (Date.now() < e) fib(20);\n',
    );
    // 20 KiB: the records fit, the CPU profile (~30 KB) does not.
    spawnSync('umount', [disk]);
    assert.equal(spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=20k', 'tmpfs', disk]).status, 0);
    const r = await runCli(['profile', '--mode', 'cpu-prof', '--out', join(disk, 'runs'), '--', 'node', app], {
      cwd: root,
      killAfterMs: 60_000,
    });
    const ours = r.stderr.split('\n').filter((l) => l.startsWith('node-flame'));
    const files = readdirSync(disk, { recursive: true, encoding: 'utf8' }).filter((n) => statSync(join(disk, n)).isFile());
    const empty = files.filter((n) => statSync(join(disk, n)).size === 0 || n.endsWith('.tmp'));
    console.log(`[spray] 20 KiB disk, real cpu-prof run: exit ${r.code}; "${ours.join(' | ')}"; files ${JSON.stringify(files)}`);
    assert.equal(r.code, 1);
    assert.equal(ours.length, 1, r.stderr);
    assert.match(ours[0], /disk that holds it is full/);
    assert.doesNotMatch(r.stderr, /^\s+at /m, 'no stack trace');
    assert.deepEqual(empty, [], 'no empty or temp file');
  } finally {
    spawnSync('umount', [disk]);
  }
});
