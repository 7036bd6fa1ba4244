import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  applyOverride,
  compileOverrides,
  DEFAULT_PATH_OVERRIDES,
  DEFAULT_RESOLVE_LOCATIONS,
  mapAllowed,
} from '../../src/core/sourceMapPaths';

const ws = '/home/me/app';
const defaults = compileOverrides(DEFAULT_PATH_OVERRIDES, ws);

test('default overrides: webpack namespaces, webpack:///./~/ into node_modules, meteor', () => {
  assert.equal(applyOverride('webpack://flame-fixture/./src/hot.ts', defaults), '/home/me/app/src/hot.ts');
  assert.equal(applyOverride('webpack:///./src/hot.ts', defaults), '/home/me/app/src/hot.ts');
  assert.equal(applyOverride('webpack:///./~/lodash/index.js', defaults), '/home/me/app/node_modules/lodash/index.js');
  assert.equal(applyOverride('meteor://💻app/server/main.ts', defaults), '/home/me/app/server/main.ts');
  assert.equal(applyOverride('file:///home/me/app/src/x.ts', defaults), undefined);
  assert.equal(applyOverride('../src/x.ts', defaults), undefined);
});

test('user overrides: the longest pattern wins, ?:* is not captured, regex characters are literal', () => {
  const o = compileOverrides(
    { 'webpack+sub:///*': '/srv/*', 'webpack+sub:///lib/*': '/libs/*', 'app://?:*/v1/*.js': '${workspaceFolder}/out/*.js' },
    ws,
  );
  assert.equal(applyOverride('webpack+sub:///lib/a.ts', o), '/libs/a.ts');
  assert.equal(applyOverride('webpack+sub:///b.ts', o), '/srv/b.ts');
  assert.equal(applyOverride('app://host/v1/main.js', o), '/home/me/app/out/main.js');
  assert.equal(applyOverride('webpackXsub:///b.ts', o), undefined);
});

test('resolveSourceMapLocations: node_modules skipped by default; ! excludes; empty or null reads every map', () => {
  assert.equal(mapAllowed('/home/me/app/dist/app.js', DEFAULT_RESOLVE_LOCATIONS), true);
  assert.equal(mapAllowed('/home/me/app/node_modules/pkg/dist/index.js', DEFAULT_RESOLVE_LOCATIONS), false);
  assert.equal(mapAllowed('C:\\app\\node_modules\\pkg\\x.js', DEFAULT_RESOLVE_LOCATIONS), false);
  assert.equal(mapAllowed('/home/me/app/node_modules/pkg/x.js', null), true);
  assert.equal(mapAllowed('/home/me/app/node_modules/pkg/x.js', []), true);
  assert.equal(mapAllowed('/elsewhere/x.js', ['/home/me/app/**']), false);
  assert.equal(mapAllowed('/home/me/app/dist/x.js', ['/home/me/app/**', '!**/dist/**']), false);
});

test("resolveSourceMapLocations on a damaged profile's 100 000-segment path answers at once", () => {
  const t0 = performance.now();
  const deep = '/x/' + 'a/'.repeat(50_000) + 'y.js';
  const near = '/' + 'node_modules/'.repeat(300) + '..';
  assert.equal(mapAllowed(deep, DEFAULT_RESOLVE_LOCATIONS), false);
  assert.equal(mapAllowed(near, DEFAULT_RESOLVE_LOCATIONS), false);
  assert.ok(performance.now() - t0 < 500, `${performance.now() - t0} ms`);
});
