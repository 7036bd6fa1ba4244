// Apart from runFolder.ts (stateless, no fs): the extension's activation side watches run folders
// with it without loading the launcher.

/** The run folders' parent inside a workspace folder (or the CLI's cwd). */
export const RUNS_DIR = '.nodeflame';

const IN_RUNS_DIR = new RegExp(`^(.*[\\\\/]${RUNS_DIR.replace('.', '\\.')}[\\\\/][^\\\\/]+)[\\\\/][^\\\\/]+$`);

/** `<ws>/.nodeflame/<run>/<file>` → `<ws>/.nodeflame/<run>`. */
export function runDirOf(path: string): string | undefined {
  return IN_RUNS_DIR.exec(path)?.[1];
}
