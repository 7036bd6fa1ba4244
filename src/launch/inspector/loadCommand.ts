import { spawn } from 'node:child_process';

export interface LoadRun {
  /** Resolves with the exit code (null when killed by a signal) once the command and its pipes end. */
  done: Promise<number | null>;
  /** Ends the command and everything it started. */
  kill(): void;
}

/**
 * Runs the user's load command line (`nodeFlame.loadCommand`, e.g. `npx autocannon -d 10 …`) with the
 * system shell: it is a shell command line by definition, written by the user in their settings.
 * It gets its own process group so stopping ends the whole tree.
 */
export function runLoadCommand(command: string, cwd: string, onOutput: (line: string) => void): LoadRun {
  const win = process.platform === 'win32';
  const child = win
    ? spawn(process.env.ComSpec ?? 'cmd.exe', ['/d', '/s', '/c', `"${command}"`], { cwd, windowsVerbatimArguments: true, stdio: ['ignore', 'pipe', 'pipe'] })
    : spawn('/bin/sh', ['-c', command], { cwd, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  const forward = (chunk: Buffer) => {
    for (const line of chunk.toString('utf8').split(/\r?\n/)) if (line.trim()) onOutput(line);
  };
  child.stdout!.on('data', forward);
  child.stderr!.on('data', forward);
  const done = new Promise<number | null>((resolve) => {
    child.on('error', (e) => {
      onOutput(e.message);
      resolve(127);
    });
    child.on('close', (code) => resolve(code));
  });
  let killed = false;
  return {
    done,
    kill() {
      if (killed || child.exitCode !== null || child.pid === undefined) return;
      killed = true;
      try {
        if (win) spawn('taskkill', ['/pid', String(child.pid), '/t', '/f'], { stdio: 'ignore' });
        else process.kill(-child.pid, 'SIGTERM');
      } catch {
        // already gone
      }
    },
  };
}
