export async function runReport(_args: string[]): Promise<number> {
  process.stderr.write('node-flame report: not implemented yet\n');
  return 2;
}
