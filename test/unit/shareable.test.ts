import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rewriteStrings, sharePaths, shareRoot, userCommand } from '../../src/core/viewer/shareable';

// Issue 37, item 19: what an exported page may say about the machine it was made on.

test("userCommand keeps the user's command and drops the environment, perf's wrapper and the launcher's node flags", () => {
  const pre = '/home/ann/.vscode/extensions/x.node-flame-0.1.0/dist/preload-stop.js';
  const log = '--logfile=/home/ann/shop/.nodeflame/r/v8.log';
  assert.equal(userCommand(`node --prof ${log} -r ${pre} /home/ann/shop/app.js --port 3000`), 'node /home/ann/shop/app.js --port 3000');
  assert.equal(
    userCommand(
      `/usr/bin/perf record -F 999 -g -k mono -o /home/ann/shop/.nodeflame/r/perf.data -- env PATH=/home/ann/bin:/usr/bin node --perf-basic-prof --perf-prof --interpreted-frames-native-stack ${log} --require ${pre} --max-old-space-size=512 app.js`,
    ),
    'node --max-old-space-size=512 app.js',
  );
  assert.equal(
    userCommand(`/usr/bin/node --require=${pre} --cpu-prof --cpu-prof-dir=/tmp/x app.js -r keep`),
    '/usr/bin/node app.js -r keep',
  );
  assert.equal(userCommand('/usr/bin/perf record -F 99 -g -o /x/perf.data -- env PATH=/a:/b npm start'), 'npm start');
  // The user's own -r of another module stays.
  assert.equal(userCommand('node -r dotenv/config app.js'), 'node -r dotenv/config app.js');
});

test('sharePaths: the app folder left out, the home folder as ~, the preload named; shareRoot never a file system root', () => {
  const fix = sharePaths('/home/ann/shop', '/home/ann');
  assert.equal(fix('/home/ann/shop/src/app.js'), 'src/app.js');
  assert.equal(fix('file:///home/ann/shop/src/app.mjs'), 'src/app.mjs');
  assert.equal(fix('/home/ann/lib/x.js'), '~/lib/x.js');
  assert.equal(fix('/home/ann/shop'), '.');
  assert.equal(fix('/home/ann/.vscode/extensions/nf/dist/preload-stop.js'), 'node-flame/preload-stop.js');
  assert.equal(fix('source map of /home/ann/shop/a.js not read'), 'source map of a.js not read');
  assert.equal(fix('/usr/lib/node_modules/npm/lib/cli.js'), '/usr/lib/node_modules/npm/lib/cli.js');
  assert.equal(shareRoot('/home/ann/shop/.nodeflame/20261125-prof', '/elsewhere'), '/home/ann/shop');
  assert.equal(shareRoot('/home/ann/x.cpuprofile', '/home/ann/work/'), '/home/ann/work');
  assert.equal(shareRoot('/.nodeflame/r', '/'), undefined);
  assert.equal(sharePaths(undefined, '/')('/etc/x'), '/etc/x');
  const page = rewriteStrings({ a: ['/home/ann/q'], n: [1, 2], timeline: { data: '/home/ann/' } }, fix, new Set(['timeline']));
  assert.deepEqual(page, { a: ['~/q'], n: [1, 2], timeline: { data: '/home/ann/' } });
});
