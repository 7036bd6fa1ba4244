import { execFile } from 'node:child_process';
import * as l10n from '@vscode/l10n';
import { InspectorError } from './errors';
import { listTargets, type InspectorTarget } from './endpoints';
import { parseAddress, formatAddress } from './address';
import { parsePs, procNodeProcess, canSignalInspector, type NodeProcess } from './processes';
import { connectAddress } from './inspectArgs';
import { enableInspector, existingInspector } from './enable';

/** An inspector target, with the pid when it was reached through a local process. */
export type AttachTarget = InspectorTarget & { pid?: number };

function psLine(pid: number): Promise<string> {
  return new Promise((resolve) => {
    execFile('ps', ['-p', String(pid), '-o', 'pid=', '-o', 'command='], (err, stdout) => resolve(err ? '' : stdout));
  });
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The local Node process with this pid; an InspectorError when none runs or it is not Node. */
export async function nodeProcessOf(pid: number): Promise<NodeProcess> {
  if (!Number.isSafeInteger(pid) || pid <= 0 || !isRunning(pid))
    throw new InspectorError('no-process', l10n.t('Process {0} is not running.', String(pid)));
  if (!canSignalInspector)
    throw new InspectorError(
      'signal',
      l10n.t('On Windows a running process cannot be switched into debugging: start it with --inspect, then pick its endpoint.'),
    );
  const found = process.platform === 'linux' ? await procNodeProcess(pid) : parsePs(await psLine(pid), new Set())[0];
  if (found) return found;
  if (!isRunning(pid)) throw new InspectorError('no-process', l10n.t('Process {0} is not running.', String(pid)));
  throw new InspectorError('not-node', l10n.t('Process {0} is not a Node.js process.', String(pid)));
}

/** The targets of the inspector at `address` (host:port or a URL); an error when it lists none. */
export async function targetsAt(address: string): Promise<AttachTarget[]> {
  const hp = parseAddress(address);
  const targets = await listTargets(hp);
  if (targets.length === 0) {
    throw new InspectorError(
      'no-targets',
      l10n.t('The inspector on {0} lists no targets. The process may be exiting; start it again and retry.', formatAddress(hp)),
    );
  }
  // A ws:// URL names one target: that one, when the inspector still lists it.
  const path = /^wss?:\/\/[^/]+(\/.+)$/i.exec(address.trim())?.[1];
  const named = path ? targets.filter((t) => t.webSocketDebuggerUrl.endsWith(path)) : [];
  return named.length ? named : targets;
}

export interface ProcessInspectorOptions {
  /** Inspectors already found listening (the picker probes them once for every process). */
  endpoints?: InspectorTarget[];
  /** Asked before SIGUSR1 switches the inspector on; false leaves the process alone. Default: yes. */
  confirm?: (p: NodeProcess) => Promise<boolean>;
  /** Wraps the wait for the inspector to open (a progress notification in the editor). */
  enabling?: (p: NodeProcess, work: () => Promise<InspectorTarget[]>) => PromiseLike<InspectorTarget[]>;
}

/**
 * The inspector of a local Node process: one it already serves (started with --inspect, or enabled
 * earlier), else one switched on with SIGUSR1. Undefined when `confirm` said no.
 */
export async function inspectorOfProcess(p: NodeProcess, opts: ProcessInspectorOptions = {}): Promise<AttachTarget | undefined> {
  const open = (opts.endpoints ?? []).filter((t) => p.listening?.includes(Number(t.address.split(':').pop())));
  if (open.length) return { ...open[0], pid: p.pid };
  // Started with --inspect (any port, also 0): connect where its command line or its sockets say, no SIGUSR1.
  const direct = await existingInspector(p);
  if (direct.length) return { ...direct[0], pid: p.pid };
  if (p.inspector?.on) {
    const where = p.inspector.address.port ? formatAddress(connectAddress(p.inspector.address)) : l10n.t('any of its listening ports');
    throw new InspectorError(
      'refused',
      l10n.t(
        'Process {0} was started with {1}, but no inspector answers on {2}. If it runs in a container, type the published host:port instead.',
        String(p.pid),
        p.inspector.flag ?? '--inspect',
        where,
      ),
    );
  }
  if (!canSignalInspector) {
    throw new InspectorError(
      'signal',
      l10n.t('On Windows a running process cannot be switched into debugging: start it with --inspect, then pick its endpoint.'),
    );
  }
  if (opts.confirm && !(await opts.confirm(p))) return undefined;
  const work = () => enableInspector(p);
  const targets = await (opts.enabling ? opts.enabling(p, work) : work());
  return { ...targets[0], pid: p.pid };
}
