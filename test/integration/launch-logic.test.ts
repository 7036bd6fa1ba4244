// The pure launch logic the extension and the CLI share: command lines, targets, loaders, ports, run folders.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync, readFileSync, existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseStartScript, splitCommandLine, hasLoader, parseNodeCommand, classifyCommand } from '../../src/launch/commandLine';
import { buildNodeArgs, profilerNodeArgs } from '../../src/launch/command';
import { findLoader } from '../../src/launch/loader';
import { findPortInText, waitForPort } from '../../src/launch/ports';
import { createRunDir, runFolderName, findRawProfiles } from '../../src/launch/run/runFolder';
import { launchJsonCandidates, packageJsonCandidates } from '../../src/launch/target';
import { describeModes } from '../../src/launch/run/modes';
import { parseRequestCount } from '../../src/launch/lineTail';
import { exitNonZero, outputHint } from '../../src/launch/errors';

const tmp = mkdtempSync(join(tmpdir(), 'nf-logic-'));
after(() => rmSync(tmp, { recursive: true, force: true }));

test('splitCommandLine handles quotes and stops at the first operator', () => {
  assert.deepEqual(splitCommandLine(`node "my app.js" 'a b' c\\ d && echo x`), ['node', 'my app.js', 'a b', 'c d']);
  assert.deepEqual(splitCommandLine('node a.js | tee log'), ['node', 'a.js']);
});

test('scripts.start: node, ts-node, tsx, env assignments; other runners are not guessed', () => {
  assert.deepEqual(parseStartScript('NODE_ENV=production node --max-old-space-size=4096 -r dotenv/config dist/server.js --port 3000'), {
    node: 'node',
    nodeArgs: ['--max-old-space-size=4096', '-r', 'dotenv/config'],
    program: 'dist/server.js',
    args: ['--port', '3000'],
    env: { NODE_ENV: 'production' },
    loader: undefined,
  });
  assert.deepEqual(parseStartScript('ts-node --transpile-only src/index.ts')?.loader, ['-r', 'ts-node/register/transpile-only']);
  assert.deepEqual(parseStartScript('ts-node src/index.ts')?.loader, ['-r', 'ts-node/register']);
  const tsx = parseStartScript('tsx watch src/main.ts');
  assert.deepEqual([tsx?.program, tsx?.loader], ['src/main.ts', ['--import', 'tsx']]);
  assert.equal(parseStartScript('next start'), undefined);
  assert.equal(parseStartScript('webpack && node x.js'), undefined);
  // the CLI: whatever comes first is the node executable
  assert.equal(
    parseNodeCommand(['/opt/node20/bin/nodejs-custom', 'app.js'], { anyExecutable: true })?.node,
    '/opt/node20/bin/nodejs-custom',
  );
});

test('node args per mode: profile into the run folder, stop handler, TS loader and source maps', () => {
  const target = { program: '/w/src/app.ts', args: [], env: {}, cwd: '/w', nodeArgs: ['--max-old-space-size=512'] };
  const a = buildNodeArgs({
    target,
    mode: 'prof',
    runDir: '/w/.nodeflame/r',
    preloadPath: '/ext/dist/preload-stop.js',
    loader: ['--import', 'tsx'],
  });
  assert.deepEqual(a, [
    '--prof',
    '--logfile=/w/.nodeflame/r/v8.log',
    '-r',
    '/ext/dist/preload-stop.js',
    '--import',
    'tsx',
    '--enable-source-maps',
    '--max-old-space-size=512',
  ]);
  // cpu-prof profiles in-process from the preload (a signal's death would lose a --cpu-prof file)
  assert.deepEqual(profilerNodeArgs('cpu-prof', '/r'), []);
  assert.deepEqual(profilerNodeArgs('perf', '/r'), [
    '--perf-basic-prof',
    '--perf-prof',
    '--interpreted-frames-native-stack',
    '--logfile=/r/perf-side-v8events.txt',
  ]);
  // the user's own --logfile wins over ours
  const own = buildNodeArgs({
    target: { ...target, program: '/w/app.js', nodeArgs: ['--logfile=/x/v8.log'] },
    mode: 'perf',
    runDir: '/r',
    preloadPath: '/p.js',
  });
  assert.deepEqual(own, ['--perf-basic-prof', '--perf-prof', '--interpreted-frames-native-stack', '-r', '/p.js', '--logfile=/x/v8.log']);
  // a loader the user already passes is not added twice
  const b = buildNodeArgs({
    target: { ...target, nodeArgs: ['-r', 'ts-node/register'] },
    mode: 'cpu-prof',
    runDir: '/r',
    preloadPath: '/p.js',
    loader: ['--import', 'tsx'],
  });
  assert.ok(hasLoader(['-r', 'ts-node/register']));
  assert.deepEqual(b, ['-r', '/p.js', '--enable-source-maps', '-r', 'ts-node/register']);
  // plain JS gets no loader
  const c = buildNodeArgs({
    target: { ...target, program: '/w/app.js', nodeArgs: [] },
    mode: 'cpu-prof',
    runDir: '/r',
    preloadPath: '/p.js',
    loader: ['--import', 'tsx'],
  });
  assert.deepEqual(c, ['-r', '/p.js']);
});

test('findLoader: tsx or ts-node from node_modules above the program, resolved to absolute paths', () => {
  const ws = join(tmp, 'ws');
  mkdirSync(join(ws, 'src'), { recursive: true });
  assert.equal(findLoader(join(ws, 'src')), undefined);
  mkdirSync(join(ws, 'node_modules/ts-node/register'), { recursive: true });
  writeFileSync(join(ws, 'node_modules/ts-node/package.json'), '{"name":"ts-node"}');
  writeFileSync(join(ws, 'node_modules/ts-node/register/transpile-only.js'), '');
  assert.deepEqual(findLoader(join(ws, 'src'))?.args, ['-r', join(ws, 'node_modules/ts-node/register/transpile-only.js')]);
  mkdirSync(join(ws, 'node_modules/tsx/dist'), { recursive: true });
  writeFileSync(
    join(ws, 'node_modules/tsx/package.json'),
    JSON.stringify({ name: 'tsx', exports: { '.': { require: './dist/loader.cjs', import: './dist/loader.mjs' } } }),
  );
  writeFileSync(join(ws, 'node_modules/tsx/dist/loader.mjs'), '');
  const tsx = findLoader(join(ws, 'src'));
  assert.equal(tsx?.name, 'tsx');
  assert.match(tsx!.args[1], /^file:\/\/.*node_modules\/tsx\/dist\/loader\.mjs$/);
  assert.equal(findLoader(join(ws, 'src'), 'ts-node')?.name, 'ts-node');
  assert.equal(findLoader(join(ws, 'src'), 'none'), undefined);
});

test('targets from launch.json and package.json', () => {
  const ws = join(tmp, 'pkg');
  mkdirSync(ws, { recursive: true });
  writeFileSync(join(ws, 'package.json'), JSON.stringify({ main: 'index.js', scripts: { start: 'node server.js --fast' } }));
  const pkg = packageJsonCandidates(ws);
  assert.deepEqual(
    pkg.map((c) => [c.source, c.target.program, c.target.args]),
    [
      ['package.json start', join(ws, 'server.js'), ['--fast']],
      ['package.json main', join(ws, 'index.js'), []],
    ],
  );
  const launch = launchJsonCandidates(
    [
      {
        type: 'node',
        request: 'launch',
        name: 'Server',
        program: '${workspaceFolder}/src/app.js',
        args: ['-v'],
        env: { PORT: '3000' },
        runtimeArgs: ['--inspect'],
        cwd: '${workspaceFolder}/src',
      },
      { type: 'node', request: 'attach', name: 'Attach', port: 9229 },
      { type: 'chrome', request: 'launch', name: 'Web', url: 'http://localhost' },
    ],
    ws,
  );
  assert.equal(launch.length, 1);
  assert.equal(launch[0].label, 'Server');
  assert.deepEqual(launch[0].target, {
    program: join(ws, 'src/app.js'),
    args: ['-v'],
    env: { PORT: '3000' },
    cwd: join(ws, 'src'),
    nodeArgs: ['--inspect'],
    nodePath: undefined,
  });
});

test('ports announced in app output', () => {
  assert.equal(findPortInText('Server listening on http://localhost:3000/'), 3000);
  assert.equal(findPortInText('listening on 0.0.0.0:8080'), 8080);
  assert.equal(findPortInText('App started on port 4000'), 4000);
  assert.equal(findPortInText('[nest] Application is running on: http://[::1]:3001'), 3001);
  assert.equal(findPortInText('report 5 items; done'), undefined);
  // ports in errors are not the app's: node's report of an uncaught EADDRINUSE, and a refused database
  const inUse = `node:events:502
      throw er; // Unhandled 'error' event
      ^

Error: listen EADDRINUSE: address already in use 127.0.0.1:45671
    at Server.setupListenHandle [as _listen2] (node:net:1908:16)
Emitted 'error' event on Server instance at:
    at process.processTicksAndRejections (node:internal/process/task_queues:82:21) {
  code: 'EADDRINUSE',
  errno: -98,
  syscall: 'listen',
  address: '127.0.0.1',
  port: 45671
}

Node.js v20.20.2`;
  assert.equal(findPortInText(inUse), undefined);
  assert.equal(findPortInText('Port 3000 is in use, trying another one...\nListening on http://localhost:3001'), 3001);
  assert.equal(
    findPortInText('Error: connect ECONNREFUSED 127.0.0.1:5432\n    at TCPConnectWrap.afterConnect\nserver listening on port 8080'),
    8080,
  );
});

test('waitForPort: resolves once a port accepts connections, gives up at the timeout', async () => {
  const srv = createServer().listen(0, '127.0.0.1');
  await new Promise((r) => srv.once('listening', r));
  const port = (srv.address() as { port: number }).port;
  assert.equal(await waitForPort(port, 2000), port);
  srv.close();
  await new Promise((r) => srv.once('close', r));
  const t0 = Date.now();
  assert.equal(await waitForPort(port, 400), undefined);
  assert.ok(Date.now() - t0 < 2000);
});

test('run folders: named by local time and mode, never reused; .nodeflame/ ignored by git', () => {
  const when = new Date(2025, 0, 2, 3, 4, 5);
  assert.equal(runFolderName('perf', when), '20250102-030405-perf');
  const base = join(tmp, '.nodeflame');
  const a = createRunDir(base, 'prof', when);
  const b = createRunDir(base, 'prof', when);
  assert.notEqual(a, b);
  assert.match(b, /20250102-030405-prof-2$/);
  assert.equal(readFileSync(join(base, '.gitignore'), 'utf8'), '*\n');
  writeFileSync(join(a, 'CPU.20250102.030405.77.3.002.cpuprofile'), '{}');
  writeFileSync(join(a, 'CPU.20250102.030405.77.0.001.cpuprofile'), '{}');
  assert.deepEqual(
    findRawProfiles(a, 'cpu-prof', 77).map((p) => p.slice(a.length + 1)),
    ['CPU.20250102.030405.77.0.001.cpuprofile', 'CPU.20250102.030405.77.3.002.cpuprofile'],
  );
  assert.ok(existsSync(b));
});

test('modes: perf is offered only on Linux; load summaries are read from autocannon', () => {
  assert.ok(describeModes('linux').find((m) => m.mode === 'perf')!.available);
  assert.equal(describeModes('darwin').find((m) => m.mode === 'perf')!.available, false);
  assert.equal(parseRequestCount(['', '1k requests in 10.05s, 2.3 MB read']), 1000);
  assert.equal(parseRequestCount(['100 requests in 5.02s, 48 kB read']), 100);
});

test("failure hints read from the app output: port in use (with the platform's tool to find its holder), port not allowed", () => {
  const inUse = ['Error: listen EADDRINUSE: address already in use :::3000', "  code: 'EADDRINUSE',"];
  assert.match(outputHint(inUse, 'linux')!, /^Port 3000 is already in use \(EADDRINUSE\).*find it with: ss -ltnp 'sport = :3000'/);
  assert.match(outputHint(inUse, 'darwin')!, /lsof -nP -iTCP:3000 -sTCP:LISTEN/);
  assert.match(outputHint(inUse, 'win32')!, /netstat -ano \| findstr :3000/);
  // an app that reports the error its own way, without an address
  assert.match(outputHint(['Server failed: EADDRINUSE'], 'linux')!, /^The port the app listens on is already in use/);
  assert.match(outputHint(['Error: listen EACCES: permission denied 0.0.0.0:80'], 'linux')!, /port 80 \(EACCES\).*above 1024/);
  assert.equal(outputHint(['TypeError: x is not a function'], 'linux'), undefined);
  assert.match(
    exitNonZero(1, null, ['TypeError: x is not a function']).message,
    /^The app exited with code 1\. Fix the error below and profile again\.\nLast output:/,
  );
});

test('targets: package.json scripts run by the lockfile\'s package manager; launch.json runtimeExecutable as a command; any command after "--"', () => {
  const ws = join(tmp, 'scripts');
  mkdirSync(ws, { recursive: true });
  writeFileSync(
    join(ws, 'package.json'),
    JSON.stringify({ scripts: { start: 'pt-serve', dev: 'nodemon app.js', 'start:fast': 'node server.js' } }),
  );
  const labels = () => packageJsonCandidates(ws).map((c) => [c.source, c.label, c.target.command]);
  assert.deepEqual(labels(), [
    ['package.json script', 'npm run start', ['npm', 'run', 'start']],
    ['package.json script', 'npm run dev', ['npm', 'run', 'dev']],
    ['package.json script', 'npm run start:fast', ['npm', 'run', 'start:fast']],
  ]);
  writeFileSync(join(ws, 'pnpm-lock.yaml'), '');
  assert.equal(packageJsonCandidates(ws)[0].label, 'pnpm run start');
  rmSync(join(ws, 'pnpm-lock.yaml'));
  writeFileSync(join(ws, 'yarn.lock'), '');
  assert.equal(packageJsonCandidates(ws)[0].label, 'yarn run start');

  const [npmDev, nodemon, plain] = launchJsonCandidates(
    [
      {
        type: 'node',
        request: 'launch',
        name: 'npm dev',
        runtimeExecutable: 'npm',
        runtimeArgs: ['run-script', 'dev'],
        env: { PORT: '1' },
      },
      {
        type: 'node',
        request: 'launch',
        name: 'nodemon',
        runtimeExecutable: 'nodemon',
        runtimeArgs: ['--watch', 'src'],
        program: '${workspaceFolder}/app.js',
        args: ['-v'],
      },
      { type: 'node', request: 'launch', name: 'node', runtimeExecutable: '/opt/node/bin/node', program: '${workspaceFolder}/app.js' },
    ],
    ws,
  );
  assert.deepEqual(npmDev.target.command, ['npm', 'run-script', 'dev']);
  assert.deepEqual(npmDev.target.env, { PORT: '1' });
  assert.deepEqual(nodemon.target.command, ['nodemon', '--watch', 'src', join(ws, 'app.js'), '-v']);
  assert.equal(plain.target.command, undefined, 'a node runtime runs the program itself');
  assert.equal(plain.target.nodePath, '/opt/node/bin/node');

  assert.deepEqual(classifyCommand(['PORT=3', 'npm', 'run', 'dev']), { command: ['npm', 'run', 'dev'], env: { PORT: '3' } });
  assert.ok('node' in classifyCommand(['node', 'app.js'])!);
  assert.ok('node' in classifyCommand(['/x/no-such-node', 'app.js'])!, 'a path followed by a script is a node executable');
  assert.deepEqual(classifyCommand(['nodemon', 'app.js']), { command: ['nodemon', 'app.js'], env: {} });
  // A package's command by its path is run as written, not taken for node (whose shim would run it for ever).
  for (const cli of ['./node_modules/.bin/tsx', '/app/node_modules/.bin/ts-node', '/opt/tools/tsx'])
    assert.deepEqual(classifyCommand([cli, 'src/main.ts']), { command: [cli, 'src/main.ts'], env: {} }, cli);
});
