import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../helpers/paths';

// Loading dist/extension.js in a plain node whose `vscode` is an inert placeholder (nothing is called:
// activate() is not run) shows what the bundle's top level pulls in. VS Code itself runs in the e2e tests.
const probe = `
const Module = require('module');
const inert = new Proxy(function () {}, { get: (_t, k) => (k === '__esModule' ? false : inert), apply: () => inert, construct: () => inert });
const load = Module._load;
Module._load = function (request, ...rest) { return request === 'vscode' ? inert : load.call(this, request, ...rest); };
const before = new Set(process.moduleLoadList);
require(process.argv[1]);
const added = process.moduleLoadList.filter((m) => !before.has(m) && m.startsWith('NativeModule ')).map((m) => m.slice(13));
process.stdout.write(JSON.stringify({ added, files: Object.keys(require.cache) }));
`;

test('loading the extension bundle only registers: no launcher, inspector, importer or worker builtins, no dist/features.js', () => {
  const bundle = join(repoRoot, 'dist', 'extension.js');
  const { added, files } = JSON.parse(execFileSync(process.execPath, ['-e', probe, bundle], { encoding: 'utf8' })) as {
    added: string[];
    files: string[];
  };
  assert.ok(existsSync(join(repoRoot, 'dist', 'features.js')), 'the build writes the lazily loaded code to dist/features.js');
  assert.deepEqual(files, [bundle], 'only dist/extension.js is read at load; dist/features.js waits for the first use');
  // ws needs zlib/http/https/net/tls, the launcher child_process, big imports worker_threads, importers readline.
  const heavy = ['zlib', 'http', 'https', 'net', 'tls', 'child_process', 'worker_threads', 'readline', 'crypto'];
  assert.deepEqual(
    added.filter((m) => heavy.includes(m)),
    [],
    `dist/extension.js loads ${added.join(', ')} at its top level`,
  );
});
