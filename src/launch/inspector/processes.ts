import { execFile } from 'node:child_process';
import { readdir, readFile, readlink } from 'node:fs/promises';
import { basename } from 'node:path';
import { inspectorArgs, type InspectorArgs } from './inspectArgs';

export interface NodeProcess {
  pid: number;
  /** Executable name, e.g. `node`. */
  name: string;
  /** Full command line, arguments joined by spaces. */
  command: string;
  /** Set when the command line (or NODE_OPTIONS) already asks for the inspector (`--inspect…`). */
  inspectFlag?: string;
  /** What its command line and NODE_OPTIONS say about the inspector (whether it is on, and where). */
  inspector?: InspectorArgs;
  /** TCP ports this process listens on (Linux only: read from /proc). */
  listening?: number[];
}

/** `node`, `node20`, `nodejs`, `node.exe`: executables that are Node itself. */
export function isNodeExecutable(path: string): boolean {
  return /^node(js)?(\d+(\.\d+)*)?(\.exe)?$/i.test(basename(path.replace(/\\/g, '/')));
}

/** Parses `ps -A -o pid= -o command=` output (macOS and other Unixes without /proc). */
export function parsePs(text: string, exclude: Set<number>): NodeProcess[] {
  const out: NodeProcess[] = [];
  for (const line of text.split('\n')) {
    const m = /^\s*(\d+)\s+(.*\S)\s*$/.exec(line);
    if (!m) continue;
    const pid = Number(m[1]);
    if (exclude.has(pid)) continue;
    const args = m[2].split(/\s+/);
    if (!isNodeExecutable(args[0])) continue;
    const inspector = inspectorArgs(args);
    out.push({ pid, name: basename(args[0]), command: m[2], inspectFlag: inspector?.flag, inspector });
  }
  return out;
}

/** Listening TCP sockets from /proc/net/tcp{,6}: inode → port. */
export function parseProcNetTcp(text: string, into = new Map<string, number>()): Map<string, number> {
  for (const line of text.split('\n').slice(1)) {
    const f = line.trim().split(/\s+/);
    if (f.length < 10 || f[3] !== '0A') continue; // 0A = LISTEN
    const port = parseInt(f[1].split(':')[1], 16);
    if (f[9] !== '0') into.set(f[9], port);
  }
  return into;
}

async function listeningInodes(): Promise<Map<string, number>> {
  const m = new Map<string, number>();
  for (const f of ['/proc/net/tcp', '/proc/net/tcp6']) {
    try {
      parseProcNetTcp(await readFile(f, 'utf8'), m);
    } catch {
      // tcp6 is missing when IPv6 is off.
    }
  }
  return m;
}

/** Ports `pid` listens on (Linux); empty when its fds are not readable (another user's process). */
export async function listeningPorts(pid: number, inodes?: Map<string, number>): Promise<number[]> {
  const socks = inodes ?? (await listeningInodes());
  let fds: string[];
  try {
    fds = await readdir(`/proc/${pid}/fd`);
  } catch {
    return [];
  }
  const ports = new Set<number>();
  await Promise.all(
    fds.map(async (fd) => {
      try {
        const m = /^socket:\[(\d+)\]$/.exec(await readlink(`/proc/${pid}/fd/${fd}`));
        const port = m && socks.get(m[1]);
        if (port) ports.add(port);
      } catch {
        // fd closed meanwhile
      }
    }),
  );
  return [...ports].sort((a, b) => a - b);
}

/** NODE_OPTIONS of a process (Linux); empty when unset or not readable (another user's process). */
export async function nodeOptionsOf(pid: number): Promise<string> {
  try {
    const env = (await readFile(`/proc/${pid}/environ`, 'utf8')).split('\0');
    return env.find((e) => e.startsWith('NODE_OPTIONS='))?.slice('NODE_OPTIONS='.length) ?? '';
  } catch {
    return '';
  }
}

async function ancestors(): Promise<Set<number>> {
  const s = new Set<number>([process.pid]);
  let pid = process.ppid;
  for (let i = 0; i < 64 && pid > 1; i++) {
    s.add(pid);
    try {
      const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
      pid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    } catch {
      break;
    }
  }
  return s;
}

/** A Linux process as a NodeProcess; undefined when it is gone or is not Node. */
export async function procNodeProcess(pid: number, inodes?: Map<string, number>): Promise<NodeProcess | undefined> {
  try {
    const args = (await readFile(`/proc/${pid}/cmdline`, 'utf8')).split('\0').filter(Boolean);
    if (!args.length) return undefined;
    let exe = args[0];
    try {
      exe = await readlink(`/proc/${pid}/exe`);
    } catch {
      // another user's process: argv[0] is all we have
    }
    if (!isNodeExecutable(exe) && !isNodeExecutable(args[0])) return undefined;
    const inspector = inspectorArgs(args, await nodeOptionsOf(pid));
    return {
      pid,
      name: basename(args[0]),
      command: args.join(' '),
      inspectFlag: inspector?.flag,
      inspector,
      listening: await listeningPorts(pid, inodes ?? (await listeningInodes())),
    };
  } catch {
    return undefined; // exited meanwhile
  }
}

async function fromProc(): Promise<NodeProcess[]> {
  const exclude = await ancestors();
  const inodes = await listeningInodes();
  const pids = (await readdir('/proc')).filter((d) => /^\d+$/.test(d)).map(Number);
  const found = await Promise.all(pids.map((pid) => (exclude.has(pid) ? undefined : procNodeProcess(pid, inodes))));
  return found.filter((p): p is NodeProcess => !!p);
}

function fromPs(): Promise<NodeProcess[]> {
  return new Promise((resolve) => {
    execFile('ps', ['-A', '-o', 'pid=', '-o', 'command='], { maxBuffer: 16 << 20 }, (err, stdout) => {
      if (err) return resolve([]);
      resolve(parsePs(stdout, new Set([process.pid, process.ppid])));
    });
  });
}

/**
 * Node processes on this machine, newest first, without this process and its parents (the editor's
 * own Node processes would be confusing targets). Windows: none (no SIGUSR1 there).
 */
export async function listNodeProcesses(): Promise<NodeProcess[]> {
  let list: NodeProcess[] = [];
  if (process.platform === 'linux') list = await fromProc();
  else if (process.platform !== 'win32') list = await fromPs();
  return list.sort((a, b) => b.pid - a.pid);
}

/** Whether this platform can switch on a running process's inspector with SIGUSR1. */
export const canSignalInspector = process.platform !== 'win32';
