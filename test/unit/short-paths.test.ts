import { test } from 'node:test';
import assert from 'node:assert/strict';
import { shortPaths } from '../../webview/shortPaths';

test("a file's name alone where no other file shares it; same-named files by the folders that tell them apart", () => {
  const m = shortPaths([
    '/app/node_modules/express/lib/router/index.js',
    '/app/node_modules/body-parser/index.js',
    '/app/node_modules/express/index.js',
    '/app/server.js',
    'node:internal/fs/utils',
  ]);
  assert.equal(m.get('/app/server.js'), 'server.js');
  assert.equal(m.get('/app/node_modules/express/lib/router/index.js'), 'router/index.js');
  assert.equal(m.get('/app/node_modules/body-parser/index.js'), 'body-parser/index.js');
  assert.equal(m.get('/app/node_modules/express/index.js'), 'express/index.js');
  assert.equal(m.get('node:internal/fs/utils'), 'utils');
});

test('paths that differ only near the root keep what differs; a Windows path splits on backslashes', () => {
  const m = shortPaths(['/a/x/lib/util.js', '/b/x/lib/util.js', 'C:\\src\\lib\\util.js']);
  assert.equal(m.get('/a/x/lib/util.js'), 'a/x/lib/util.js');
  assert.equal(m.get('/b/x/lib/util.js'), 'b/x/lib/util.js');
  assert.equal(m.get('C:\\src\\lib\\util.js'), 'src/lib/util.js');
});
