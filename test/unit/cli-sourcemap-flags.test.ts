import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sourceMapOptionsFrom } from '../../src/cli/sourceMapFlags';
import {
  applyOverride,
  compileOverrides,
  DEFAULT_PATH_OVERRIDES,
  DEFAULT_RESOLVE_LOCATIONS,
  mapAllowed,
} from '../../src/core/sourceMapPaths';

const cwd = '/home/me/app';

function options(values: Parameters<typeof sourceMapOptionsFrom>[0]) {
  const o = sourceMapOptionsFrom(values, cwd);
  assert.notEqual(typeof o, 'string', String(o));
  return o as Exclude<typeof o, string>;
}

test('without flags: the editor defaults, ${workspaceFolder} the current folder', () => {
  const o = options({});
  assert.deepEqual(o.pathOverrides, DEFAULT_PATH_OVERRIDES);
  assert.deepEqual(o.resolveLocations, DEFAULT_RESOLVE_LOCATIONS);
  assert.equal(o.workspaceFolder, cwd);
});

test('--source-map-path-override joins the defaults; a relative path is from the current folder; the same pattern replaces', () => {
  const o = options({
    'source-map-path-override': ['custom://flame/*=./orig/*', 'webpack://?:*/*=${workspaceFolder}/web/*', 'a=b=c'],
  });
  const compiled = compileOverrides(o.pathOverrides!, o.workspaceFolder!);
  assert.equal(applyOverride('custom://flame/src/x.ts', compiled), '/home/me/app/orig/src/x.ts');
  assert.equal(applyOverride('webpack://app/./src/x.ts', compiled), '/home/me/app/web/src/x.ts');
  assert.equal(applyOverride('meteor://💻app/server/main.ts', compiled), '/home/me/app/server/main.ts', 'other defaults stay');
  assert.equal(o.pathOverrides!['a'], '/home/me/app/b=c', 'split at the first =');
});

test('--source-map-path-override without pattern or path is refused', () => {
  for (const bad of ['custom://x/*', '=x', 'x=']) {
    const o = sourceMapOptionsFrom({ 'source-map-path-override': [bad] }, cwd);
    assert.equal(typeof o, 'string', bad);
    assert.match(o as string, /wants pattern=path/);
  }
});

test('--resolve-source-map-locations: exclusions alone join the defaults, an inclusion replaces them; relative globs from the current folder', () => {
  const excl = options({ 'resolve-source-map-locations': ['!dist/vendor/**'] }).resolveLocations!;
  assert.deepEqual(excl, [...DEFAULT_RESOLVE_LOCATIONS, '!/home/me/app/dist/vendor/**']);
  assert.equal(mapAllowed('/home/me/app/dist/main.js', excl), true);
  assert.equal(mapAllowed('/home/me/app/dist/vendor/lib.js', excl), false);
  assert.equal(mapAllowed('/home/me/app/node_modules/x/index.js', excl), false, 'node_modules stays off');

  const incl = options({ 'resolve-source-map-locations': ['dist/**', '**/node_modules/mine/**', '!**/*.test.js'] }).resolveLocations!;
  assert.deepEqual(incl, ['/home/me/app/dist/**', '**/node_modules/mine/**', '!**/*.test.js']);
  assert.equal(mapAllowed('/home/me/app/dist/main.js', incl), true);
  assert.equal(mapAllowed('/home/me/app/src/main.js', incl), false);
  assert.equal(mapAllowed('/home/me/app/node_modules/mine/a.js', incl), true);
  assert.equal(mapAllowed('/home/me/app/dist/a.test.js', incl), false);
  assert.deepEqual(options({ 'resolve-source-map-locations': ['${workspaceFolder}/out/**'] }).resolveLocations, ['/home/me/app/out/**']);
});
