export async function runDiff(_args: string[]): Promise<number> {
  process.stderr.write('node-flame diff: not implemented yet\n');
  return 2;
}
