import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ProfileBuilder } from '../../src/core/model';
import { createPathMapper, mapProfilePaths, remotePathOf } from '../../src/core/pathMapping';

function workspace(): string {
  const ws = realpathSync(mkdtempSync(join(tmpdir(), 'nf-pathmap-')));
  for (const f of ['server.js', 'src/routes/auth.js', 'node_modules/express/lib/router/index.js', 'lib/index.js']) {
    mkdirSync(join(ws, f, '..'), { recursive: true });
    writeFileSync(join(ws, f), '// x\n');
  }
  return ws;
}

test('a container profile (/app/…) maps to the workspace files, line hits included', (t) => {
  const ws = workspace();
  t.after(() => rmSync(ws, { recursive: true, force: true }));
  const b = new ProfileBuilder('cpuprofile');
  const handler = b.frame({ name: 'auth', file: '/app/src/routes/auth.js', line: 12, column: 3, category: 'app' });
  const main = b.frame({ name: '(anonymous)', file: 'file:///app/server.js', line: 1, column: 1, category: 'app' });
  const dep = b.frame({
    name: 'handle',
    file: '/app/node_modules/express/lib/router/index.js',
    line: 40,
    column: 1,
    category: 'dependency',
    pkg: 'express',
  });
  const core = b.frame({ name: 'emit', file: 'node:events', line: 500, column: 1, category: 'node' });
  const gone = b.frame({ name: 'other', file: '/app/src/missing.js', line: 1, column: 1, category: 'app' });
  b.sample([main, dep, handler], 9);
  b.sample([main, core, gone], 1);
  b.lineHit('/app/src/routes/auth.js', 14, 9, 9);
  b.lineHit('/app/server.js', 3, 0, 10);
  const p = b.build();

  const changed = mapProfilePaths(p, createPathMapper({ roots: [ws] }));
  assert.equal(p.frames[handler].file, join(ws, 'src/routes/auth.js'));
  assert.equal(p.frames[main].file, join(ws, 'server.js'), 'file:// URLs map too');
  assert.equal(p.frames[dep].file, join(ws, 'node_modules/express/lib/router/index.js'));
  assert.equal(p.frames[core].file, 'node:events', 'core modules are left alone');
  assert.equal(p.frames[gone].file, '/app/src/missing.js', 'no local file: the remote path stays');
  assert.deepEqual(p.lineHits.get(join(ws, 'src/routes/auth.js'))?.get(14), { self: 9, total: 9 });
  assert.ok(!p.lineHits.has('/app/src/routes/auth.js'));
  assert.ok(p.lineHits.has(join(ws, 'server.js')));
  assert.equal(changed.get('/app/src/routes/auth.js'), join(ws, 'src/routes/auth.js'));
});

test('explicit remoteRoot/localRoot rules win over suffix matching and work for deep roots', (t) => {
  const ws = workspace();
  t.after(() => rmSync(ws, { recursive: true, force: true }));
  const map = createPathMapper({ rules: { '/usr/src/app/': ws }, roots: [] });
  assert.equal(map('/usr/src/app/lib/index.js'), join(ws, 'lib/index.js'));
  assert.equal(map('/usr/src/app/not-here.js'), join(ws, 'not-here.js'), 'an explicit rule maps even files not on disk');
  assert.equal(map('/elsewhere/lib/index.js'), undefined, 'no rule and no roots: unchanged');
  const list = createPathMapper({ rules: [{ remoteRoot: 'C:\\srv\\app', localRoot: ws }] });
  assert.equal(list('c:\\srv\\app\\server.js'), join(ws, 'server.js'), 'Windows remote paths, case-insensitive drive');
});

test('suffix matching: longest suffix first, remembered prefix, weak bare names refused', (t) => {
  const ws = workspace();
  t.after(() => rmSync(ws, { recursive: true, force: true }));
  const map = createPathMapper({ roots: [ws] });
  // Deep container path: the learned prefix then maps a sibling file by its bare name.
  assert.equal(map('/home/node/app/src/routes/auth.js'), join(ws, 'src/routes/auth.js'));
  assert.equal(map('/home/node/app/server.js'), join(ws, 'server.js'));
  // A global npm install must not land on the workspace's lib/index.js by bare name.
  assert.equal(createPathMapper({ roots: [ws] })('/usr/lib/node_modules/npm/index.js'), undefined);
  // A file of this machine stays as it is; its file:// URL becomes a path.
  const local = join(ws, 'server.js');
  assert.equal(map(local), undefined);
  assert.equal(map(pathToFileURL(local).href), local);
  assert.equal(remotePathOf('internal/process/task_queues'), undefined);
});
