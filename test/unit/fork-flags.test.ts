import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withRunFlags } from '../../src/launch/preload/forkFlags';

const RUN = ['--prof', '--logfile=/runs/r/v8.log', '--require=/ext/dist/preload-stop.js'];

test("a fork's own execArgv gets the run's flags in front, the child's own words after", () => {
  assert.deepEqual(withRunFlags(['--conditions', 'node'], RUN), [...RUN, '--conditions', 'node']);
});

test('flags the child already has are not added twice; its own --logfile is kept', () => {
  const own = ['--prof', '--logfile=/elsewhere.log', '-r', '/ext/dist/preload-stop.js'];
  assert.equal(withRunFlags(own, RUN), own);
  assert.deepEqual(withRunFlags(['--logfile=/elsewhere.log'], RUN), [
    '--prof',
    '--require=/ext/dist/preload-stop.js',
    '--logfile=/elsewhere.log',
  ]);
});
