// Where a Node process's inspector listens, read from its command line and NODE_OPTIONS the way Node
// reads them: a process started with --inspect is connected to directly, without SIGUSR1.
import { DEFAULT_INSPECTOR_PORT, type HostPort } from './address';

export interface InspectorArgs {
  /** The command line switches the inspector on (`--inspect`, `--inspect-brk`, `--inspect-wait`). */
  on: boolean;
  /** Where it listens (or would, after SIGUSR1): port 0 means a port the system picked. */
  address: HostPort;
  /** The flag as written, e.g. `--inspect=127.0.0.1:9333` (the last inspector flag). */
  flag?: string;
}

/** Node options that take their value as the next argument when written without `=`. */
const TAKES_VALUE = new Set([
  '-r',
  '--require',
  '-e',
  '--eval',
  '-p',
  '--print',
  '--import',
  '--loader',
  '--experimental-loader',
  '-C',
  '--conditions',
  '--inspect-port',
  '--debug-port',
  '--title',
  '--input-type',
  '--env-file',
  '--env-file-if-exists',
  '--watch-path',
  '--openssl-config',
  '--icu-data-dir',
  '--redirect-warnings',
  '--diagnostic-dir',
  '--cpu-prof-dir',
  '--cpu-prof-name',
  '--heap-prof-dir',
  '--report-dir',
  '--stack-trace-limit',
]);

/** `[host:]port` as Node splits it: digits only are a port, anything else without a colon a host. */
function splitHostPort(value: string, into: HostPort): void {
  const bracketed = /^\[([^\]]*)\]$/.exec(value);
  if (bracketed) {
    into.host = bracketed[1];
    into.port = DEFAULT_INSPECTOR_PORT;
    return;
  }
  const colon = value.lastIndexOf(':');
  if (colon < 0) {
    if (/^\d+$/.test(value)) into.port = Number(value);
    else if (value) {
      into.host = value;
      into.port = DEFAULT_INSPECTOR_PORT;
    }
    return;
  }
  const host = value.slice(0, colon).replace(/^\[(.*)\]$/, '$1');
  if (host) into.host = host;
  const port = value.slice(colon + 1);
  if (/^\d+$/.test(port)) into.port = Number(port);
}

/** Splits NODE_OPTIONS as Node does: on spaces, with double quotes grouping and `\` escaping inside them. */
export function splitNodeOptions(text: string): string[] {
  const out: string[] = [];
  let cur = '';
  let quoted = false;
  let started = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted && c === '\\' && i + 1 < text.length) {
      cur += text[++i];
    } else if (c === '"') {
      quoted = !quoted;
      started = true;
    } else if (!quoted && /\s/.test(c)) {
      if (started) out.push(cur);
      cur = '';
      started = false;
    } else {
      cur += c;
      started = true;
    }
  }
  if (started) out.push(cur);
  return out;
}

/**
 * The inspector a Node process asked for: `argv` is its whole command line (`node [options] script
 * [args]`; the script's own arguments are not Node's), `nodeOptions` its NODE_OPTIONS, read first so the
 * command line wins. Undefined when neither names an inspector flag.
 */
export function inspectorArgs(argv: string[], nodeOptions = ''): InspectorArgs | undefined {
  const state: InspectorArgs = { on: false, address: { host: '127.0.0.1', port: DEFAULT_INSPECTOR_PORT } };
  let seen = false;
  const read = (args: string[], stopAtScript: boolean) => {
    for (let i = 0; i < args.length; i++) {
      const a = args[i];
      if (a === '--') break;
      if (!a.startsWith('-') || a === '-') {
        if (stopAtScript) break;
        continue;
      }
      const eq = a.indexOf('=');
      const name = (eq < 0 ? a : a.slice(0, eq)).replace(/_/g, '-');
      let value = eq < 0 ? undefined : a.slice(eq + 1);
      if (value === undefined && TAKES_VALUE.has(name)) value = args[++i];
      if (name === '--inspect' || name === '--inspect-brk' || name === '--inspect-wait') {
        state.on = true;
        if (value !== undefined) splitHostPort(value, state.address);
      } else if (name === '--inspect-port' || name === '--debug-port') {
        if (value !== undefined) splitHostPort(value, state.address);
      } else continue;
      seen = true;
      state.flag = value === undefined || eq >= 0 ? a : `${a} ${value}`;
    }
  };
  read(splitNodeOptions(nodeOptions), false);
  read(argv.slice(1), true);
  return seen ? state : undefined;
}

/** The address to connect to for an inspector bound to `a`: wildcard binds are reached on loopback. */
export function connectAddress(a: HostPort): HostPort {
  if (a.host === '' || a.host === '0.0.0.0') return { host: '127.0.0.1', port: a.port };
  if (a.host === '::' || a.host === '::0') return { host: '::1', port: a.port };
  return a;
}
