// The Accessible View of the guide's app, from a real --prof run: the text names the /auth handler and, one level
// under it, pbkdf2Sync, each with its shares, and the finding at the pbkdf2Sync line.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expressExample, profileExpressApp } from '../helpers/expressApp';
import { loadProfile } from '../../src/core/importers';
import { findFindings } from '../../src/core/findings';
import { ViewerSession } from '../../src/core/viewer/viewerSession';
import { accessibleText } from '../../src/core/viewer/accessibleText';

const ws = mkdtempSync(join(tmpdir(), 'nf-a11y-text-'));
after(() => rmSync(ws, { recursive: true, force: true }));

test('the Accessible View of the Express app: /auth handler → pbkdf2Sync with shares, the finding', { timeout: 180_000 }, async () => {
  copyFileSync(join(expressExample, 'app.js'), join(ws, 'app.js'));
  const log = await profileExpressApp({ cwd: ws, profiler: 'prof', load: { requests: 60, connections: 4 } });
  const profile = await loadProfile(log);
  const session = new ViewerSession(profile, 'isolate.log', log);
  session.findings = findFindings(profile).map((f) => ({ ...f, frame: -1 }));
  const text = accessibleText(session);
  const lines = text.split('\n');
  // The one-line hot path near the top: the handler, then its call.
  const hot = lines.find((l) => /^1\. \d+\.\d %: /.test(l)) ?? '';
  console.log(`[a11y] ${lines.length} lines; hot path ${hot}`);
  assert.match(hot, new RegExp(String.raw`^1\. \d+\.\d %: \(anonymous\) ${ws}/app\.js:23:\d+ → pbkdf2Sync `));
  const share = String.raw`total (\d+\.\d) %, self (\d+\.\d) %`;
  const handler = lines.findIndex((l) => new RegExp(String.raw`^( *)\(anonymous\) ${ws}/app\.js:23(:\d+)?: ${share}$`).test(l));
  assert.ok(handler > 0, 'the /auth handler is in the tree');
  const indent = /^ */.exec(lines[handler])![0].length;
  const pbkdf2 = lines.findIndex((l, i) => i > handler && l.startsWith(`${' '.repeat(indent + 2)}pbkdf2Sync `));
  assert.ok(pbkdf2 > handler, `pbkdf2Sync one level under the handler:\n${lines.slice(handler, handler + 6).join('\n')}`);
  const [, handlerTotal] = new RegExp(share).exec(lines[handler])!.map(Number);
  const [, pbkdf2Total] = new RegExp(share).exec(lines[pbkdf2])!.map(Number);
  assert.ok(pbkdf2Total > 20 && pbkdf2Total <= handlerTotal, `pbkdf2Sync ${pbkdf2Total} % of the handler's ${handlerTotal} %`);
  assert.match(text, new RegExp(String.raw`warning blocking-sync ${ws}/app\.js:31 \(\d+\.\d %\)`));
  assert.match(text.slice(text.indexOf('Top functions')), /\n1\. .+: self \d+\.\d %, total \d+\.\d %/);
});
