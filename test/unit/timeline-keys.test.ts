import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rangeKey, rangeText } from '../../webview/timelineKeys';

const s = {
  tlRangeSaid: 'Selected range: {0} to {1} ({2}).',
  tlNoRangeSaid: 'No range selected: the views show the whole profile.',
  tlMarkersSaid: 'Markers: {0}.',
  tlMarkerAt: '{0} at {1}',
};

test('Shift+arrows select a range from the chart’s middle, move its end, and keep it inside the span', () => {
  let range: { from: number; to: number } | undefined;
  const host = { range: () => range, setRange: (r: { from: number; to: number }) => void (range = r) };
  const view = { from: 0, to: 1000 };
  const span = { start: 0, end: 1000 };
  assert.equal(rangeKey('ArrowUp', view, span, host), false);
  assert.equal(rangeKey('ArrowRight', undefined, span, host), false, 'no chart yet');
  assert.equal(rangeKey('ArrowRight', view, span, host), true);
  assert.deepEqual(range, { from: 500, to: 550 });
  rangeKey('ArrowRight', view, span, host);
  assert.deepEqual(range, { from: 500, to: 600 });
  rangeKey('ArrowLeft', view, span, host);
  rangeKey('ArrowLeft', view, span, host);
  // The end back at the anchor: the range is the step before it.
  assert.deepEqual(range, { from: 450, to: 500 });
  range = { from: 980, to: 990 };
  rangeKey('ArrowRight', view, span, host);
  assert.deepEqual(range, { from: 980, to: 1000 }, 'clamped to the span');
});

test('the range and the run’s markers in it, said as text', () => {
  const markers = [
    { kind: 'start', at: 0, label: 'start' },
    { kind: 'port', at: 120, label: 'port 3000 open' },
    { kind: 'loadEnd', at: 2500, label: 'load end' },
  ];
  assert.equal(
    rangeText(s, undefined, markers),
    'No range selected: the views show the whole profile. Markers: start at 0 ms, port 3000 open at 120 ms, load end at 2.50 s.',
  );
  assert.equal(
    rangeText(s, { from: 100, to: 400 }, markers),
    'Selected range: 100 ms to 400 ms (300 ms). Markers: port 3000 open at 120 ms.',
  );
  assert.equal(rangeText(s, { from: 130, to: 400 }, []), 'Selected range: 130 ms to 400 ms (270 ms).');
});
