function makeWords(n) {
  const out = [];
  let x = 7;
  for (let i = 0; i < n; i++) {
    x = (x * 48271) % 2147483647;
    out.push(x.toString(36));
  }
  return out;
}
function sortStrings(words) {
  return words.slice().sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}
describe('sort', () => {
  it('sorts words', () => {
    const words = makeWords(200000);
    for (let i = 0; i < 4; i++) expect(sortStrings(words).length === words.length).toBe(true);
  });
});
