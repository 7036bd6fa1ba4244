import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isNodeExecutable, parseProcNetTcp, parsePs } from '../../src/launch/inspector/processes';
import { connectAddress, inspectorArgs, splitNodeOptions } from '../../src/launch/inspector/inspectArgs';
import { mergeCpuProfiles, type CpuProfile } from '../../src/launch/run/cpuProfileMerge';

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

test('the inspector a command line asks for: every --inspect form, as Node reads it', () => {
  const at = (argv: string[], env?: string) => {
    const a = inspectorArgs(argv, env);
    return a && { on: a.on, host: a.address.host, port: a.address.port, flag: a.flag };
  };
  const node = (...args: string[]) => ['/usr/bin/node', ...args, 'server.js', '--inspect=1'];
  assert.deepEqual(at(node('--inspect')), { on: true, host: '127.0.0.1', port: 9229, flag: '--inspect' });
  assert.deepEqual(at(node('--inspect=127.0.0.1:43117')), { on: true, host: '127.0.0.1', port: 43117, flag: '--inspect=127.0.0.1:43117' });
  assert.deepEqual(at(node('--inspect=43117')), { on: true, host: '127.0.0.1', port: 43117, flag: '--inspect=43117' });
  assert.deepEqual(at(node('--inspect=0.0.0.0')), { on: true, host: '0.0.0.0', port: 9229, flag: '--inspect=0.0.0.0' });
  assert.deepEqual(at(node('--inspect=[::1]:9333')), { on: true, host: '::1', port: 9333, flag: '--inspect=[::1]:9333' });
  assert.deepEqual(at(node('--inspect-brk=9444')), { on: true, host: '127.0.0.1', port: 9444, flag: '--inspect-brk=9444' });
  assert.deepEqual(at(node('--inspect-wait=localhost:9445')), {
    on: true,
    host: 'localhost',
    port: 9445,
    flag: '--inspect-wait=localhost:9445',
  });
  assert.deepEqual(at(node('--inspect=0')), { on: true, host: '127.0.0.1', port: 0, flag: '--inspect=0' });
  // --inspect-port only says where SIGUSR1 would open it; with --inspect it moves the port, either order.
  assert.deepEqual(at(node('--inspect-port=9555')), { on: false, host: '127.0.0.1', port: 9555, flag: '--inspect-port=9555' });
  assert.deepEqual(at(node('--inspect-port', '9556', '--inspect')), { on: true, host: '127.0.0.1', port: 9556, flag: '--inspect' });
  assert.deepEqual(at(node('--inspect', '--inspect-port=10.0.0.2:9557')), {
    on: true,
    host: '10.0.0.2',
    port: 9557,
    flag: '--inspect-port=10.0.0.2:9557',
  });
  assert.deepEqual(at(node('--debug-port=9558', '--inspect')), { on: true, host: '127.0.0.1', port: 9558, flag: '--inspect' });
  // Options with a separate value are skipped over; the script's own arguments are not Node's.
  assert.deepEqual(at(node('-r', 'ts-node/register', '--inspect=9559')), {
    on: true,
    host: '127.0.0.1',
    port: 9559,
    flag: '--inspect=9559',
  });
  assert.equal(at(['/usr/bin/node', 'server.js', '--inspect=9560']), undefined);
  assert.equal(at(['/usr/bin/node', '--', 'server.js', '--inspect']), undefined);
  // NODE_OPTIONS counts, and the command line wins over it.
  assert.deepEqual(at(['node', 'app.js'], '--max-old-space-size=4096 --inspect=127.0.0.1:9561'), {
    on: true,
    host: '127.0.0.1',
    port: 9561,
    flag: '--inspect=127.0.0.1:9561',
  });
  assert.deepEqual(at(['node', '--inspect=9563', 'app.js'], '--inspect=9562'), {
    on: true,
    host: '127.0.0.1',
    port: 9563,
    flag: '--inspect=9563',
  });
  assert.deepEqual(at(['node', 'app.js'], '--require "/a b/hook.js" --inspect-brk'), {
    on: true,
    host: '127.0.0.1',
    port: 9229,
    flag: '--inspect-brk',
  });
  assert.equal(at(['node', 'app.js'], '--max-old-space-size=4096'), undefined);
  assert.deepEqual(splitNodeOptions(' --a  "b c" --d="e \\"f\\"" '), ['--a', 'b c', '--d=e "f"']);
  // Wildcard binds are reached on loopback.
  assert.deepEqual(connectAddress({ host: '0.0.0.0', port: 9229 }), { host: '127.0.0.1', port: 9229 });
  assert.deepEqual(connectAddress({ host: '::', port: 9229 }), { host: '::1', port: 9229 });
  assert.deepEqual(connectAddress({ host: '10.0.0.2', port: 9229 }), { host: '10.0.0.2', port: 9229 });
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
