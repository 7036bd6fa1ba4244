import { describe, it, expect } from 'vitest';

function fib(n) {
  return n < 2 ? n : fib(n - 1) + fib(n - 2);
}
describe('fib', () => {
  it('computes fib(32) a few times', () => {
    for (let i = 0; i < 6; i++) expect(fib(32)).toBe(2178309);
  });
});
