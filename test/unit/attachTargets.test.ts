import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isNodeExecutable, parseProcNetTcp, parsePs } from '../../src/launch/inspector/processes';
import { mergeCpuProfiles, type CpuProfile } from '../../src/launch/inspector/cpuprofile';

test('ps output: Node processes only, with their --inspect flag; own pids left out', () => {
  const ps = [
    '  101 /usr/local/bin/node --inspect=0.0.0.0:9229 server.js',
    '  102 /bin/bash -c node app.js',
    '  103 node20 worker.js',
    '  104 /Applications/Foo.app/Contents/MacOS/Foo',
    '  105 node app.js',
  ].join('\n');
  const got = parsePs(ps, new Set([105]));
  assert.deepEqual(
    got.map((p) => [p.pid, p.name, p.inspectFlag]),
    [
      [101, 'node', '--inspect=0.0.0.0:9229'],
      [103, 'node20', undefined],
    ],
  );
  assert.ok(isNodeExecutable('C:\\Program Files\\nodejs\\node.exe'));
  assert.ok(!isNodeExecutable('/usr/bin/nodemon'));
});

test('/proc/net/tcp: only LISTEN sockets, port from hex', () => {
  const text = [
    '  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode',
    '   0: 0100007F:2405 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 4242 1 0000000000000000 100 0 0 10 0',
    '   1: 0100007F:2405 0100007F:C350 01 00000000:00000000 00:00000000 00000000     0        0 4343 1 0000000000000000 20 4 30 10 -1',
  ].join('\n');
  assert.deepEqual([...parseProcNetTcp(text)], [['4242', 9221]]);
});

test('profile pieces merge by call path, keeping sample order and time across the gap', () => {
  const cf = (functionName: string) => ({ functionName, scriptId: '1', url: 'file:///a.js', lineNumber: 0, columnNumber: 0 });
  const a: CpuProfile = {
    nodes: [
      { id: 1, callFrame: cf('(root)'), children: [2] },
      { id: 2, callFrame: cf('f'), hitCount: 2, positionTicks: [{ line: 3, ticks: 2 }] },
    ],
    startTime: 1000,
    endTime: 1300,
    samples: [2, 2],
    timeDeltas: [100, 100],
  };
  const b: CpuProfile = {
    nodes: [
      { id: 7, callFrame: cf('(root)'), children: [8, 9] },
      { id: 8, callFrame: cf('f'), hitCount: 1, positionTicks: [{ line: 3, ticks: 1 }] },
      { id: 9, callFrame: cf('g'), hitCount: 1 },
    ],
    startTime: 1400,
    endTime: 1700,
    samples: [9, 8],
    timeDeltas: [50, 50],
  };
  const m = mergeCpuProfiles([a, b]);
  assert.equal(m.nodes.length, 3);
  const f = m.nodes.find((n) => n.callFrame.functionName === 'f')!;
  assert.equal(f.hitCount, 3);
  assert.deepEqual(f.positionTicks, [{ line: 3, ticks: 3 }]);
  const names = m.samples!.map((id) => m.nodes.find((n) => n.id === id)!.callFrame.functionName);
  assert.deepEqual(names, ['f', 'f', 'g', 'f']);
  // Absolute sample times 1100, 1200, 1450, 1500 → deltas from the first start.
  assert.deepEqual(m.timeDeltas, [100, 100, 250, 50]);
  assert.equal(m.startTime, 1000);
  assert.equal(m.endTime, 1700);
});
