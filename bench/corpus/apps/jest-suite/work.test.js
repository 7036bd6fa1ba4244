function workOfFile(rounds) {
  let h = 0;
  for (let i = 0; i < rounds; i++) h = (h * 31 + ((i * 2654435761) >>> 7)) | 0;
  return h;
}
describe('work', () => {
  it('hashes', () => {
    expect(workOfFile(1.5e8)).not.toBe(1);
  });
});
