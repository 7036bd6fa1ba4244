import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, get } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { AttachSession, applyScriptSourceMaps, listTargets, makeRunDir, saveAttachRun } from '../../src/launch/inspector';
import { loadProfile } from '../../src/core/importers';
import { createPathMapper, mapProfilePaths } from '../../src/core/pathMapping';

// Loaded at run time so the test bundle does not carry the whole compiler.
const ts = createRequire(__filename)('typescript') as typeof import('typescript');

// Types and blank lines shift the TypeScript lines away from the emitted JavaScript's.
const TS = `import * as http from 'http';

interface Reply {
  value: number;
  note: string;
}

function hotHandler(req: http.IncomingMessage, res: http.ServerResponse): void {
  const r: Reply = { value: 0, note: 'sum' };
  for (let i = 0; i < 3e6; i++) r.value += Math.sqrt(i) * Math.sin(i);
  res.end(String(r.value));
}

const server = http.createServer((req, res) => hotHandler(req, res));
server.listen(0, '127.0.0.1', () => console.log('LISTENING ' + (server.address() as { port: number }).port));
`;
const TS_HOT_LINE = 8;

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

test(
  'transpiled code in a "container": inline maps announced over the inspector and /remote paths land on the workspace .ts lines',
  { timeout: 60_000 },
  async (t) => {
    const remote = realpathSync(mkdtempSync(join(tmpdir(), 'nf-remote-app-')));
    const ws = realpathSync(mkdtempSync(join(tmpdir(), 'nf-ws-')));
    const out = mkdtempSync(join(tmpdir(), 'nf-attach-out-'));
    // The workspace has only the TypeScript source, as with ts-node; the JavaScript exists only "remotely".
    mkdirSync(join(ws, 'src'));
    writeFileSync(join(ws, 'src/server.ts'), TS);
    mkdirSync(join(remote, 'src'));
    const js = ts.transpileModule(TS, {
      fileName: 'server.ts',
      compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2020, inlineSourceMap: true },
    }).outputText;
    writeFileSync(join(remote, 'src/server.js'), js);
    writeFileSync(join(remote, 'src/server.ts'), TS);

    const inspectPort = await freePort();
    const child = spawn(process.execPath, [`--inspect=127.0.0.1:${inspectPort}`, join(remote, 'src/server.js')], {
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    t.after(() => {
      child.kill('SIGKILL');
      for (const d of [remote, ws, out]) rmSync(d, { recursive: true, force: true });
    });
    const appPort = await new Promise<number>((resolve, reject) => {
      let buf = '';
      child.stdout!.on('data', (d) => {
        buf += d;
        const m = /LISTENING (\d+)/.exec(buf);
        if (m) resolve(Number(m[1]));
      });
      child.on('exit', (c) => reject(new Error(`exited ${c}`)));
    });
    // From here on the remote files are out of reach, like a container's filesystem.
    rmSync(remote, { recursive: true, force: true });

    const [target] = await listTargets({ host: '127.0.0.1', port: inspectPort });
    const session = await AttachSession.start(target, { chunkMs: 0 });
    const end = Date.now() + 1500;
    while (Date.now() < end)
      await new Promise<void>((r) => get({ host: '127.0.0.1', port: appPort }, (res) => res.resume().on('end', () => r())));
    const result = await session.stop();
    assert.ok(result.profile);
    const remoteUrl = Object.keys(result.sourceMaps).find((u) => u.endsWith('/src/server.js'));
    assert.ok(
      remoteUrl && result.sourceMaps[remoteUrl].startsWith('data:application/json;base64,'),
      'the inline map was announced by Debugger.scriptParsed',
    );

    const mapPath = createPathMapper({ roots: [ws] });
    const saved = await saveAttachRun(
      await makeRunDir(out),
      { ...result, profile: result.profile },
      { target, stoppedBy: 'user', mapPath },
    );
    const p = await loadProfile(saved.profilePath);
    const before = p.frames.find((f) => f.name === 'hotHandler')!;
    assert.equal(
      before.file,
      join(remote, 'src/server.js'),
      'the remote script has no local counterpart, so it stays remote until its map is applied',
    );
    await applyScriptSourceMaps(p, result.sourceMaps, saved.mapped, mapPath);
    mapProfilePaths(p, mapPath);
    const hot = p.frames.find((f) => f.name === 'hotHandler')!;
    assert.equal(hot.file, join(ws, 'src/server.ts'));
    assert.equal(hot.line, TS_HOT_LINE);
    assert.equal(hot.generated?.file, join(remote, 'src/server.js'));
    const tsHits = p.lineHits.get(join(ws, 'src/server.ts'));
    assert.ok(
      tsHits && [...tsHits.keys()].some((l) => l >= TS_HOT_LINE && l <= TS_HOT_LINE + 3),
      `line heat on the handler's TS lines: ${tsHits && [...tsHits.keys()]}`,
    );
    assert.deepEqual(JSON.parse(readFileSync(join(saved.dir, 'sourcemaps.json'), 'utf8'))[remoteUrl].slice(0, 5), 'data:');
  },
);
