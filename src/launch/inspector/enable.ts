import { readFile } from 'node:fs/promises';
import * as l10n from '@vscode/l10n';
import { InspectorError } from './errors';
import { listTargets, probeLocalInspectors, type InspectorTarget } from './endpoints';
import { isNodeExecutable, listeningPorts, type NodeProcess } from './processes';
import { connectAddress } from './inspectArgs';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function targetsOnPorts(ports: number[], host = '127.0.0.1'): Promise<InspectorTarget[]> {
  const lists = await Promise.all(ports.map((port) => listTargets({ host, port }, 500).catch(() => [])));
  return lists.flat();
}

/** Targets at the address the process's command line names (port 0 and an inspector that is off name none). */
async function targetsAtNamedAddress(p: NodeProcess): Promise<InspectorTarget[]> {
  const a = p.inspector?.address;
  if (!a || a.port === 0) return [];
  return listTargets(connectAddress(a), 1000).catch(() => []);
}

/**
 * Inspector targets a local process already serves: at the address its command line (or NODE_OPTIONS)
 * names, else on one of its listening sockets (Linux: /proc/net/tcp matched with its socket fds).
 */
export async function existingInspector(p: NodeProcess): Promise<InspectorTarget[]> {
  if (p.inspector?.on) {
    const named = await targetsAtNamedAddress(p);
    if (named.length) return named;
  }
  if (process.platform !== 'linux') return [];
  const host = p.inspector ? connectAddress(p.inspector.address).host : '127.0.0.1';
  return targetsOnPorts(await listeningPorts(p.pid), host);
}

async function stillSameProcess(p: NodeProcess): Promise<boolean> {
  if (process.platform !== 'linux') return true;
  try {
    const args = (await readFile(`/proc/${p.pid}/cmdline`, 'utf8')).split('\0').filter(Boolean);
    return args.join(' ') === p.command && isNodeExecutable(args[0] ?? '');
  } catch {
    return false;
  }
}

/**
 * Switches on the inspector of a running Node process with SIGUSR1 (what `node inspect -p <pid>`
 * does) and waits for it to listen. SIGUSR1 ends most other programs, so the pid is checked again
 * right before the signal in case it was reused.
 */
export async function enableInspector(p: NodeProcess, timeoutMs = 4000): Promise<InspectorTarget[]> {
  const already = await existingInspector(p);
  if (already.length) return already;
  if (process.platform === 'win32') {
    throw new InspectorError('signal', l10n.t('Windows has no SIGUSR1: start the app with --inspect, then pick its inspector endpoint.'));
  }
  if (!(await stillSameProcess(p))) {
    throw new InspectorError(
      'signal',
      l10n.t('Process {0} has exited or is no longer the same Node process. Pick it again.', String(p.pid)),
    );
  }
  const linux = process.platform === 'linux';
  const beforePorts = new Set<number>(linux ? await listeningPorts(p.pid) : []);
  const beforeAddresses = new Set<string>(linux ? [] : (await probeLocalInspectors()).map((t) => t.address));
  try {
    process.kill(p.pid, 'SIGUSR1');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new InspectorError(
      'signal',
      code === 'EPERM'
        ? l10n.t(
            'Not allowed to signal process {0} (it belongs to another user). Start it with --inspect, or run the editor as that user.',
            String(p.pid),
          )
        : l10n.t('Process {0} has exited.', String(p.pid)),
    );
  }
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    await sleep(150);
    let found: InspectorTarget[];
    if (linux) {
      const fresh = (await listeningPorts(p.pid)).filter((port) => !beforePorts.has(port));
      found = await targetsOnPorts(fresh);
    } else {
      // --inspect-port names where SIGUSR1 opens it; otherwise it is one of the usual ports.
      found = await targetsAtNamedAddress(p);
      if (!found.length) found = (await probeLocalInspectors()).filter((t) => !beforeAddresses.has(t.address));
    }
    if (found.length) return found;
  }
  throw new InspectorError(
    'timeout',
    l10n.t(
      'Process {0} did not open its inspector after SIGUSR1. Port 9229 may be taken by another process, or the app disables the signal (--disable-sigusr1). Start it with --inspect=127.0.0.1:<free port> instead.',
      String(p.pid),
    ),
  );
}
