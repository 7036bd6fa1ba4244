const assert = require('node:assert');
function fib(n) {
  return n < 2 ? n : fib(n - 1) + fib(n - 2);
}
describe('fib', () => {
  it('computes fib(32) a few times', () => {
    for (let i = 0; i < 6; i++) assert.strictEqual(fib(32), 2178309);
  });
});
