// Bad runs through the real `node-flame profile` (the launch code the extension uses too): port busy,
// node or perf missing, perf_event_paranoid too high, paths with spaces and non-ASCII, Windows file
// URLs in a profile, a symlinked workspace. Each failure must say what to do next; after each run no
// process of it may be left, and no file outside its run folder.
// (Crash, exit before listening, port never opening, Stop timeout and a missing program are in launch-cli.test.ts.)
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type Server } from 'node:net';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { repoRoot } from '../helpers/paths';
import { leftovers, marker as newMarker, runCli as runCliIn, runDirOf, runJson as readRunJson, type CliRun } from '../helpers/cli';
import { ProfileSession } from '../../src/launch/launcher';
import { LaunchError } from '../../src/launch/errors';
import { preflightPerf } from '../../src/launch/perf';
import { loadProfile } from '../../src/core/importers';
import { buildHotspots } from '../../src/core/model/hotspots';
import { SourceFileMatcher, caseInsensitiveFs } from '../../src/core/model/sourceFiles';
import type { JsonReport } from '../../src/core/exporters/json';
import { perfCannotRecord } from '../helpers/perfProbe';

// esbuild's API cannot be bundled into this test, so it is loaded from the repo at run time.
const esbuild = createRequire(join(repoRoot, 'package.json'))('esbuild') as typeof import('esbuild');

const work = mkdtempSync(join(tmpdir(), 'nf-bad-'));
after(() => rmSync(work, { recursive: true, force: true }));

const hasPerf = !perfCannotRecord;
const preloadPath = join(repoRoot, 'dist', 'preload-stop.js');

/** Half a second of one hot function: enough samples in every mode, short on a shared machine. */
const HOT_JS = `function hotSpaced(n) { let s = 0; for (let i = 0; i < n; i++) s += Math.sqrt(i) * Math.sin(i); return s; }
const end = Date.now() + 500;
let t = 0;
while (Date.now() < end) t += hotSpaced(20000);
console.log('hot done', t > 0);
`;
writeFileSync(
  join(work, 'port-app.js'),
  `const port = Number(process.env.PORT);
require('http').createServer((q, r) => r.end()).listen(port, '127.0.0.1', () => console.log('listening on port ' + port));
`,
);
// Logs the listen error and lingers, as apps that handle it do: the load must not run against whatever holds the port.
writeFileSync(
  join(work, 'port-linger.js'),
  `const srv = require('http').createServer((q, r) => r.end('wrong server'));
srv.on('error', (e) => { console.error(e); setTimeout(() => process.exit(1), 1500); });
srv.listen(Number(process.env.PORT), '127.0.0.1');
`,
);
// Proves whether the app ran at all: it leaves the file named by its first argument.
writeFileSync(join(work, 'sentinel.js'), `require('fs').writeFileSync(process.argv[2], 'ran');\n`);

const marker = () => newMarker('nfbad');

type RunInfo = { pid?: number; nodePid?: number; profiles: string[]; exitCode: number | null; error?: string };
const runJson = (dir: string) => readRunJson<RunInfo>(dir);

/** The CLI in the work folder; killed after 90 s. */
function runCli(args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Promise<CliRun> {
  return runCliIn(args, { cwd: opts.cwd ?? work, env: opts.env, killAfterMs: 90_000 });
}

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * Nothing of the run is left: no process with its marker, exactly the expected entries in the app's
 * cwd (no isolate logs or profiles beside the app), and no JIT map of its processes in /tmp.
 */
function assertClean(mark: string, cwd: string, cwdEntries: string[], runDir?: string): void {
  assert.equal(leftovers(mark), '', 'a process of the run is still there');
  assert.deepEqual(readdirSync(cwd).sort(), [...cwdEntries].sort(), `files left in the cwd ${cwd}`);
  if (!runDir || !existsSync(runDir)) return;
  const info = runJson(runDir);
  const pids = new Set([info.pid, info.nodePid].filter((p): p is number => typeof p === 'number'));
  for (const n of readdirSync(runDir)) {
    const m = /^perf-(\d+)\.map$/.exec(n);
    if (m) pids.add(Number(m[1]));
  }
  for (const pid of pids) assert.ok(!existsSync(`/tmp/perf-${pid}.map`), `/tmp/perf-${pid}.map left behind`);
}

function holdPort(): Promise<{ server: Server; port: number }> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve({ server, port: (server.address() as { port: number }).port }));
  });
}

test('port busy: the app dies of EADDRINUSE; the message names the port, how to find its holder, and a free port as the fix', async () => {
  const { server, port } = await holdPort();
  try {
    const out = join(work, 'runs-port');
    const mark = marker();
    const before = readdirSync(work);
    const r = await runCli(['profile', '--mode', 'cpu-prof', '--out', out, '--no-report', '--', 'node', 'port-app.js', mark], {
      env: { PORT: String(port) },
    });
    assert.equal(r.code, 1);
    const msg = /node-flame profile: (.*)/.exec(r.stderr)?.[1] ?? '';
    assert.match(msg, new RegExp(`^The app exited with code 1\\. Port ${port} is already in use \\(EADDRINUSE\\)`));
    assert.match(msg, new RegExp(`find it with: ss -ltnp 'sport = :${port}'`));
    assert.match(msg, /give the app a free port \(nodeFlame\.env, e\.g\. PORT/);
    assert.match(r.stderr, /Last output:[\s\S]*EADDRINUSE/);
    assertClean(mark, work, [...before, 'runs-port'], runDirOf(r));

    // With a load command waiting for the port, and an app that logs the error and lingers: the port in
    // the error is not taken for the app's (it is open: the other process holds it), the load does not run.
    const mark2 = marker();
    const l = await runCli(
      ['profile', '--mode', 'prof', '--out', out, '--no-report', '--load', `echo load-${mark2}`, '--', 'node', 'port-linger.js', mark2],
      { env: { PORT: String(port) } },
    );
    assert.equal(l.code, 1);
    assert.match(
      l.stderr,
      new RegExp(`before it listened on a port, so the load command did not run\\. Port ${port} is already in use \\(EADDRINUSE\\)`),
    );
    assert.doesNotMatch(l.stdout, /load-nfbad/);
    assertClean(mark2, work, [...before, 'runs-port'], runDirOf(l));
  } finally {
    server.close();
  }
});

test('node missing: PATH without node, and a nodePath that is not an executable; nothing is started and no run folder is left', async () => {
  const out = join(work, 'runs-node');
  const sentinel = join(work, `ran-${marker()}`);
  const emptyBin = join(work, 'empty-bin');
  mkdirSync(emptyBin, { recursive: true });
  const a = await runCli(['profile', '--out', out, '--', 'node', 'sentinel.js', sentinel], { env: { PATH: emptyBin } });
  assert.equal(a.code, 1);
  // The CLI names its own way to choose node (the word after "--"), not the editor's setting.
  assert.match(
    a.stderr,
    /^node-flame profile: Node\.js not found: "node" could not be run \(ENOENT\)\. Install Node\.js, or give the full path of node after "--", for example: -- \/usr\/local\/bin\/node app\.js$/m,
  );
  assert.ok(!a.stderr.includes('nodeFlame.nodePath'), a.stderr);

  const notExec = join(work, 'not-a-node');
  writeFileSync(notExec, 'just text\n');
  chmodSync(notExec, 0o644);
  const b = await runCli(['profile', '--out', out, '--', notExec, 'sentinel.js', sentinel]);
  assert.equal(b.code, 1);
  assert.match(b.stderr, new RegExp(`Node\\.js not found: "${escapeRe(notExec)}" could not be run \\(EACCES\\)\\. .*after "--"`));

  assert.ok(!existsSync(sentinel), 'the app did not run');
  assert.deepEqual(
    readdirSync(out).filter((n) => n !== '.gitignore'),
    [],
    'no empty run folder left',
  );
  assert.equal(leftovers(sentinel), '');
});

test(
  'perf missing (PATH without perf): the preflight names the install command, exits non-zero, starts nothing',
  { skip: process.platform !== 'linux' },
  async () => {
    const bin = join(work, 'node-only-bin');
    mkdirSync(bin, { recursive: true });
    symlinkSync(process.execPath, join(bin, 'node'));
    const out = join(work, 'runs-perf-missing');
    const sentinel = join(work, `ran-${marker()}`);
    const r = await runCli(['profile', '--mode', 'perf', '--out', out, '--', 'node', 'sentinel.js', sentinel], { env: { PATH: bin } });
    assert.equal(r.code, 1);
    assert.match(
      r.stderr,
      /^node-flame profile: "perf" was not found on PATH\. Install it: Debian: sudo apt install linux-perf; Ubuntu: sudo apt install linux-tools-\$\(uname -r\) linux-tools-generic; Fedora\/RHEL: sudo dnf install perf\.$/m,
    );
    assert.ok(!existsSync(sentinel), 'the app did not run');
    assert.deepEqual(
      readdirSync(out).filter((n) => n !== '.gitignore'),
      [],
      'no empty run folder left',
    );
    assert.equal(leftovers(sentinel), '');
  },
);

test(
  'perf_event_paranoid above 2 (preflight fed a fake value): the sysctl to run, and the session starts nothing',
  { skip: process.platform !== 'linux' },
  async () => {
    const paranoid = join(work, 'paranoid');
    const noCaps = join(work, 'status-no-caps');
    writeFileSync(paranoid, '3\n');
    writeFileSync(noCaps, 'Name:\tnode\nCapEff:\t0000000000000000\n');
    const sentinel = join(work, `ran-${marker()}`);
    const runDir = join(work, 'runs-paranoid');
    mkdirSync(runDir);
    const session = new ProfileSession({
      target: { program: join(work, 'sentinel.js'), args: [sentinel], env: {}, cwd: work, nodeArgs: [] },
      mode: 'perf',
      runDir,
      preloadPath,
      perfPreflight: { paranoidFile: paranoid, statusFile: noCaps },
    });
    await assert.rejects(session.run(), (e: unknown) => {
      assert.ok(e instanceof LaunchError);
      assert.equal(e.code, 'perf-preflight');
      assert.equal(
        e.message,
        'perf cannot sample: kernel.perf_event_paranoid is 3, and profiling your own processes needs 2 or lower. Run: sudo sysctl kernel.perf_event_paranoid=2 (to keep it after a reboot: echo kernel.perf_event_paranoid=2 | sudo tee /etc/sysctl.d/99-perf.conf).',
      );
      return true;
    });
    assert.equal(session.command, undefined, 'no command was built');
    assert.ok(!existsSync(sentinel), 'the app did not run');
    assert.deepEqual(readdirSync(runDir), []);

    // CAP_PERFMON (bit 38) lifts the limit: the preflight then goes on to the real perf probe.
    if (hasPerf) {
      const perfmon = join(work, 'status-perfmon');
      writeFileSync(perfmon, `CapEff:\t${(1n << 38n).toString(16).padStart(16, '0')}\n`);
      const ok = await preflightPerf({ paranoidFile: paranoid, statusFile: perfmon });
      assert.equal(ok.ok, true, JSON.stringify(ok));
    }
  },
);

// Spaces and non-ASCII in the program path, the cwd and the run folder (.nodeflame/ inside the cwd).
const spaced = join(work, 'x', 'dir with spaces', '한글 ü');
mkdirSync(spaced, { recursive: true });
writeFileSync(join(spaced, 'app.js'), HOT_JS);
let spacedCpuProfile: string | undefined;

for (const mode of ['prof', 'cpu-prof', ...(hasPerf ? ['perf'] : [])]) {
  test(`${mode}: program, cwd and run folder under "dir with spaces/한글 ü": profile written, processed, hot function named with that path`, async () => {
    const mark = marker();
    const r = await runCli(['profile', '--mode', mode, '--', 'node', 'app.js', mark], { cwd: spaced });
    assert.equal(r.code, 0, r.stderr);
    const dir = runDirOf(r);
    assert.ok(dir.startsWith(join(spaced, '.nodeflame') + '/'), dir);
    const info = runJson(dir);
    assert.equal(info.profiles.length >= 1, true);
    const main = join(dir, info.profiles[0]);
    assert.ok(existsSync(main));
    if (mode === 'cpu-prof') spacedCpuProfile = main;
    // the report line of the hot function: name, then the file with its spaces and Hangul intact
    assert.match(r.stdout, new RegExp(`\\bhotSpaced ${escapeRe(join(spaced, 'app.js'))}:1:\\d+`));
    if (mode === 'perf') {
      assert.deepEqual(
        readdirSync(dir).filter((n) => n.startsWith('isolate-')),
        [],
        'V8 side log of --perf-basic-prof removed',
      );
    }
    assertClean(mark, spaced, ['.nodeflame', 'app.js'], dir);
  });
}

test('Windows file:///C:/… URLs in a real .cpuprofile: report and editor matching use the Windows path', async () => {
  let prof = spacedCpuProfile;
  if (!prof) {
    const d = join(work, 'cpuprof-win');
    const run = spawnSync(process.execPath, ['--cpu-prof', `--cpu-prof-dir=${d}`, 'app.js'], { cwd: spaced, encoding: 'utf8' });
    assert.equal(run.status, 0, run.stderr);
    prof = join(d, readdirSync(d)[0]);
  }
  // As if taken on Windows in C:\Users\me\dir with spaces\한글 ü: the URL keeps node's percent-encoding.
  const local = pathToFileURL(join(spaced, 'app.js')).href;
  const win = 'file:///C:/Users/me/' + local.slice(pathToFileURL(join(work, 'x')).href.length + 1);
  assert.match(win, /^file:\/\/\/C:\/Users\/me\/dir%20with%20spaces\/%ED%95%9C%EA%B8%80%20%C3%BC\/app\.js$/);
  const text = readFileSync(prof, 'utf8');
  assert.ok(text.includes(`"${local}"`), 'the real profile holds file URLs');
  const winProf = join(work, 'windows.cpuprofile');
  writeFileSync(winProf, text.split(`"${local}"`).join(`"${win}"`));
  const winPath = 'C:\\Users\\me\\dir with spaces\\한글 ü\\app.js';

  const r = await runCli(['report', winProf, '--format', 'json', '--top', '100000']);
  assert.equal(r.code, 0, r.stderr);
  const top = (JSON.parse(r.stdout) as JsonReport).functions.find((f) => f.name === 'hotSpaced');
  assert.equal(top?.file, winPath);
  assert.equal(top?.line, 1);
  const t = await runCli(['report', winProf]);
  assert.match(t.stdout, new RegExp(`hotSpaced ${escapeRe(winPath)}:1:\\d+`));

  // The editor side: the same project open on Windows (other case), or checked out on Linux.
  const files = [...buildHotspots(await loadProfile(winProf)).files.keys()];
  assert.ok(files.includes(winPath), files.join('\n'));
  assert.equal(new SourceFileMatcher(files, caseInsensitiveFs('win32')).match('c:\\users\\ME\\Dir With Spaces\\한글 ü\\app.js'), winPath);
  assert.equal(new SourceFileMatcher(files, false).match('/home/me/src/dir with spaces/한글 ü/app.js'), winPath);
});

// A workspace reached through a symlinked folder: a bundled TypeScript app with a source map.
const HOT_TS = `// The hot path, below some types so the bundle's lines differ from the source's.
export interface Options {
  ms: number;
}

export function crunch(opts: Options): number {
  const end = Date.now() + opts.ms;
  let acc = 7;
  while (Date.now() < end) {
    for (let i = 0; i < 100000; i++) acc = (acc * 1103515245 + 12345) % 2147483647;
  }
  return acc;
}
`;
const CRUNCH_LINE = 6;
const wsReal = join(work, 'ws-real');
const wsLink = join(work, 'ws-link');

async function buildSymlinkedWorkspace(): Promise<void> {
  if (existsSync(wsLink)) return;
  mkdirSync(join(wsReal, 'src'), { recursive: true });
  writeFileSync(join(wsReal, 'src', 'hot.ts'), HOT_TS);
  writeFileSync(join(wsReal, 'src', 'main.ts'), `import { crunch } from './hot';\nconsole.log('acc', crunch({ ms: 500 }));\n`);
  await esbuild.build({
    entryPoints: [join(wsReal, 'src', 'main.ts')],
    bundle: true,
    platform: 'node',
    sourcemap: true,
    outfile: join(wsReal, 'dist', 'app.js'),
    logLevel: 'silent',
  });
  symlinkSync(wsReal, wsLink, 'dir');
}

for (const [mode, preserve] of [
  ['cpu-prof', false],
  ['prof', false],
  ['cpu-prof', true],
] as const) {
  test(`${mode}${preserve ? ' --preserve-symlinks-main' : ''}: program through a symlinked workspace; source maps apply and an editor path of either spelling finds the file`, async () => {
    await buildSymlinkedWorkspace();
    const mark = marker();
    const out = join(work, 'runs-sym');
    const nodeArgs = preserve ? ['--preserve-symlinks', '--preserve-symlinks-main'] : [];
    const r = await runCli(['profile', '--mode', mode, '--out', out, '--', 'node', ...nodeArgs, join(wsLink, 'dist', 'app.js'), mark], {
      cwd: wsLink,
    });
    assert.equal(r.code, 0, r.stderr);
    const dir = runDirOf(r);
    // Node runs the main module by its real path unless told to keep symlinks; the report follows node.
    const reported = join(preserve ? wsLink : wsReal, 'src', 'hot.ts');
    const other = join(preserve ? wsReal : wsLink, 'src', 'hot.ts');
    assert.match(r.stdout, new RegExp(`\\bcrunch ${escapeRe(reported)}:${CRUNCH_LINE}:\\d+`));
    assert.doesNotMatch(r.stdout, new RegExp(escapeRe(other)));

    const profile = await loadProfile(join(dir, runJson(dir).profiles[0]));
    const files = [...buildHotspots(profile).files.keys()];
    assert.ok(files.includes(reported), files.join('\n'));
    const matcher = new SourceFileMatcher(files, false);
    // The editor shows the file under the folder that was opened: either spelling finds the profile's name.
    for (const doc of [other, reported]) {
      // as the editor asks (src/extension/editor/locations.ts): a profile path that exists is another file, unless it is this one
      const exists = (f: string) => f !== doc && existsSync(f);
      assert.equal(matcher.match(doc, { exists, realpath: realpathSync.native }), reported, doc);
    }
    assertClean(mark, wsReal, ['dist', 'src'], dir);
  });
}
