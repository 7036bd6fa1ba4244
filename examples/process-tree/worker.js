// The worker process: counts primes below n by trial division, the hot function of the example.
function countPrimes(n) {
  let count = 0;
  for (let i = 2; i < n; i++) {
    let prime = true;
    for (let d = 2; d * d <= i; d++) {
      if (i % d === 0) {
        prime = false;
        break;
      }
    }
    if (prime) count++;
  }
  return count;
}

process.on('message', ({ id, n }) => process.send({ id, result: countPrimes(n) }));
