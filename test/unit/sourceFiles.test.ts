import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
  assert.equal(
    m.match('/home/me/proj/lib/util.js', { exists: (p) => p === '/app/lib/util.js' }),
    undefined,
    'the profile path is a real, different file here',
  );
  assert.equal(m.match('/home/me/proj/none.js'), undefined);
});

test('equally good tails are ambiguous', () => {
  const m = new SourceFileMatcher(['/a/x/lib/i.js', '/b/y/lib/i.js'], false);
  assert.equal(m.match('/me/lib/i.js'), undefined);
  assert.equal(m.match('/me/x/lib/i.js'), '/a/x/lib/i.js');
});

test('a symlinked folder: the editor path and the profile path match through realpath, either way round', () => {
  const dir = mkdtempSync(join(tmpdir(), 'nf-srcfiles-'));
  try {
    mkdirSync(join(dir, 'real', 'src'), { recursive: true });
    writeFileSync(join(dir, 'real', 'src', 'app.js'), '');
    writeFileSync(join(dir, 'real', 'src', 'other.js'), '');
    symlinkSync(join(dir, 'real'), join(dir, 'link'), 'dir');
    const realpath = realpathSync.native;
    const real = join(dir, 'real', 'src', 'app.js');
    const link = join(dir, 'link', 'src', 'app.js');
    // Another app.js in the profile makes the bare-name tail ambiguous, so only realpath can decide.
    const exists = (doc: string) => (f: string) => f !== doc && existsSync(f);
    const byReal = new SourceFileMatcher([real, '/srv/lib/app.js'], false);
    assert.equal(byReal.match(link, { exists: exists(link) }), undefined, 'without realpath the symlinked spelling is another file');
    assert.equal(byReal.match(link, { exists: exists(link), realpath }), real);
    const byLink = new SourceFileMatcher([link, '/srv/lib/app.js'], false);
    assert.equal(byLink.match(real, { exists: exists(real), realpath }), link);
    assert.equal(
      byLink.match(join(dir, 'real', 'src', 'other.js'), { exists: exists(join(dir, 'real', 'src', 'other.js')), realpath }),
      undefined,
    );
    // a realpath that throws (file gone) leaves the plain match in charge
    const gone = () => {
      throw new Error('ENOENT');
    };
    assert.equal(byReal.match(join(dir, 'elsewhere', 'app.js'), { realpath: gone }), undefined);
    assert.equal(byReal.match(real, { realpath: gone }), real);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
