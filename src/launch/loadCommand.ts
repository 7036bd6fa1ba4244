import { spawn } from 'node:child_process';
import { LineTail } from './lineTail';
import { signalGroup, signalPid } from './processTree';

/** Time the load command gets after SIGTERM before its whole group is killed. */
export const LOAD_KILL_AFTER_MS = 2000;

export interface LoadRun {
  /** Resolves with the exit code (null when killed by a signal) once the command and its pipes end. */
  done: Promise<number | null>;
  /** Ends the command and everything it started: SIGTERM to its group, SIGKILL after 2 s. */
  kill(): void;
}

export interface LoadOptions {
  cwd: string;
  env?: NodeJS.ProcessEnv;
  /** Each complete output line (stdout and stderr), without its newline. */
  onLine: (line: string) => void;
}

/**
 * Runs the user's load command line (`nodeFlame.loadCommand`, `--load`, e.g. `npx autocannon -d 10 …`)
 * with the system shell. The one place of the launcher where a shell runs: the load command is a
 * shell command line by definition, written by the user. It gets its own process group so stopping
 * ends the whole tree.
 */
export function runLoadCommand(command: string, o: LoadOptions): LoadRun {
  const win = process.platform === 'win32';
  const [shell, args] = win ? [process.env.ComSpec ?? 'cmd.exe', ['/d', '/s', '/c', `"${command}"`]] : ['/bin/sh', ['-c', command]];
  const child = spawn(shell, args, {
    cwd: o.cwd,
    env: o.env ?? process.env,
    stdio: ['ignore', 'pipe', 'pipe'],
    windowsHide: true,
    windowsVerbatimArguments: win,
    detached: !win,
  });
  for (const stream of [child.stdout, child.stderr]) {
    const lines = new LineTail(0);
    stream.setEncoding('utf8');
    stream.on('data', (text: string) => lines.push(text).forEach(o.onLine));
    stream.on('end', () => lines.flush().forEach(o.onLine));
  }
  const done = new Promise<number | null>((resolve) => {
    child.once('error', (e) => {
      o.onLine(e.message);
      resolve(127);
    });
    child.once('close', (code) => resolve(code));
  });
  let killed = false;
  return {
    done,
    kill() {
      const pid = child.pid;
      if (killed || pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
      killed = true;
      if (win) {
        spawn('taskkill', ['/pid', String(pid), '/t', '/f'], { stdio: 'ignore' }).on('error', () => undefined);
        return;
      }
      if (!signalGroup(pid, 'SIGTERM')) signalPid(pid, 'SIGTERM');
      setTimeout(() => signalGroup(pid, 'SIGKILL'), LOAD_KILL_AFTER_MS).unref();
    },
  };
}
