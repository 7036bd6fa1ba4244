// The pace of a live helper (perf script): niced while it keeps up, raised a rung per second it stays behind, back
// down after ten calm seconds; a refused raise leaves it where it is.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Backlog, Pace, PACE_NICE, Unanswered } from '../../src/launch/backlogPace';

test('the backlog is as old as the oldest byte not taken', () => {
  const b = new Backlog();
  b.grew(0, 100);
  b.grew(500, 300);
  b.grew(900, 300);
  assert.equal(b.age(1000, 0), 1000);
  assert.equal(b.age(1000, 100), 500, 'the first 100 bytes taken: the next came at 500');
  assert.equal(b.age(1200, 300), 0, 'all taken');
  b.grew(1300, 400);
  assert.equal(b.age(2000, 300), 700);
});

test('behind, it steps up a rung a second; calm for ten seconds, it steps down', () => {
  const set: number[] = [];
  const p = new Pace(0, (n) => (set.push(n), true));
  assert.equal(p.nice, PACE_NICE[0]);
  p.update(500, 1500);
  assert.equal(p.nice, 19, 'not before a second since the start');
  p.update(1000, 1500);
  assert.equal(p.nice, 10);
  p.update(1500, 2000);
  assert.equal(p.nice, 10, 'a rung at most each second');
  p.update(2000, 2500);
  assert.equal(p.nice, 0);
  p.update(3000, 3000);
  assert.equal(p.nice, 0, 'no rung above the app’s own priority');
  for (let t = 3200; t < 13_000; t += 200) p.update(t, 100);
  assert.equal(p.nice, 0, 'not yet ten calm seconds');
  p.update(13_200, 100);
  assert.equal(p.nice, 10);
  assert.deepEqual(set, [19, 10, 0, 10]);
});

test('a raise the system refuses leaves it niced, and it is not asked again', () => {
  let asked = 0;
  const p = new Pace(0, (n) => (asked++, n === 19));
  p.update(1000, 5000);
  p.update(2000, 5000);
  p.update(3000, 5000);
  assert.equal(p.nice, 19);
  assert.equal(asked, 2, 'the start and one refused raise');
});

test('input taken without output is behind once it is more than a few records', () => {
  const u = new Unanswered();
  assert.equal(u.age(0, 4000, 0), 0, 'a header');
  assert.equal(u.age(500, 40_000, 0), 0, 'noticed now');
  assert.equal(u.age(1500, 60_000, 0), 1000);
  assert.equal(u.age(1700, 60_000, 9000), 0, 'it printed');
  assert.equal(u.age(2500, 70_000, 9000), 0, 'less than 16 KB since');
});
