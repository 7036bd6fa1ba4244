import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SourceFileMatcher, caseInsensitiveFs, fileUrlToPathLoose, pathKey } from '../../src/core/model/sourceFiles';

test('file URLs and Windows paths become one spelling', () => {
  assert.equal(fileUrlToPathLoose('file:///C:/My%20App/a.js'), 'C:/My App/a.js');
  assert.equal(fileUrlToPathLoose('file:///home/u/a.js'), '/home/u/a.js');
  assert.equal(fileUrlToPathLoose('/home/u/a.js'), '/home/u/a.js');
  assert.equal(pathKey('c:\\Users\\Me\\.\\app.js', false), 'C:/Users/Me/app.js');
  assert.equal(pathKey('C:\\Users\\Me\\app.js', true), 'c:/users/me/app.js');
  assert.equal(pathKey('/a//b/./c.ts', false), '/a/b/c.ts');
  assert.equal(caseInsensitiveFs('win32'), true);
  assert.equal(caseInsensitiveFs('darwin'), true);
  assert.equal(caseInsensitiveFs('linux'), false);
});

test('exact match, case folded only where the file system folds it', () => {
  const files = ['/Work/App/src/Server.ts', '/Work/App/app.js'];
  assert.equal(new SourceFileMatcher(files, true).match('/work/app/src/server.ts'), '/Work/App/src/Server.ts');
  assert.equal(new SourceFileMatcher(files, false).match('/work/app/src/server.ts'), undefined);
  assert.equal(new SourceFileMatcher(files, false).match('/Work/App/src/Server.ts'), '/Work/App/src/Server.ts');
  const win = new SourceFileMatcher(['file:///C:/proj/src/x.ts'], true);
  assert.equal(win.match('c:\\Proj\\SRC\\x.ts'), 'file:///C:/proj/src/x.ts');
});

test('a profile taken elsewhere matches by the longest path tail', () => {
  const m = new SourceFileMatcher(['/app/src/routes/auth.ts', '/app/src/auth.ts', '/app/lib/util.js'], false);
  assert.equal(m.match('/home/me/proj/src/routes/auth.ts'), '/app/src/routes/auth.ts');
  assert.equal(m.match('/home/me/proj/src/auth.ts'), '/app/src/auth.ts');
  assert.equal(m.match('/home/me/proj/other/auth.ts'), undefined, 'two profile files share the bare name');
  assert.equal(m.match('/home/me/proj/util.js'), '/app/lib/util.js', 'a unique bare name is enough');
  assert.equal(m.match('/home/me/proj/lib/util.js', { exists: (p) => p === '/app/lib/util.js' }), undefined, 'the profile path is a real, different file here');
  assert.equal(m.match('/home/me/proj/none.js'), undefined);
});

test('equally good tails are ambiguous', () => {
  const m = new SourceFileMatcher(['/a/x/lib/i.js', '/b/y/lib/i.js'], false);
  assert.equal(m.match('/me/lib/i.js'), undefined);
  assert.equal(m.match('/me/x/lib/i.js'), '/a/x/lib/i.js');
});
