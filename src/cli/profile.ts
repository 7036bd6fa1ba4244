export async function runProfile(_args: string[]): Promise<number> {
  process.stderr.write('node-flame profile: not implemented yet\n');
  return 2;
}
