import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

export { freePort } from '../../helpers/net';

const live = new Set<number>();

/**
 * Spawns in a new process group so the whole tree can be killed together; the group is killed
 * when this test process exits, even if a test never reached its cleanup.
 */
export function spawnGroup(cmd: string, args: string[], opts: SpawnOptions): ChildProcess {
  const child = spawn(cmd, args, { ...opts, detached: true });
  if (child.pid) {
    live.add(child.pid);
    child.once('exit', () => live.delete(child.pid as number));
  }
  return child;
}

function parentMap(): Map<number, number[]> {
  const children = new Map<number, number[]>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${name}/stat`, 'utf8');
    } catch {
      continue;
    }
    // Field 4 (ppid) follows the parenthesised command name, which may itself contain spaces.
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    const list = children.get(ppid) ?? [];
    list.push(Number(name));
    children.set(ppid, list);
  }
  return children;
}

/** The pid and all its descendants, collected while they are still linked to their parents. */
export function processTree(pid: number): number[] {
  const children = parentMap();
  const out: number[] = [];
  const todo = [pid];
  while (todo.length) {
    const p = todo.pop() as number;
    out.push(p);
    todo.push(...(children.get(p) ?? []));
  }
  return out;
}

function signal(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch {
    // already gone
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Kills a process group and every descendant (profiled apps may start their own groups), TERM then KILL. */
export async function killTree(pid: number, graceMs = 3000): Promise<void> {
  const tree = processTree(pid);
  signal(-pid, 'SIGTERM');
  for (const p of tree) signal(p, 'SIGTERM');
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline && tree.some(alive)) await new Promise((r) => setTimeout(r, 100));
  signal(-pid, 'SIGKILL');
  for (const p of tree) if (alive(p)) signal(p, 'SIGKILL');
  live.delete(pid);
}

function killAllNow(): void {
  for (const pid of live) {
    const tree = processTree(pid);
    signal(-pid, 'SIGKILL');
    for (const p of tree) signal(p, 'SIGKILL');
  }
  live.clear();
}

process.on('exit', killAllNow);
for (const sig of ['SIGINT', 'SIGTERM'] as const) {
  process.once(sig, () => {
    killAllNow();
    process.exit(128 + (sig === 'SIGINT' ? 2 : 15));
  });
}
