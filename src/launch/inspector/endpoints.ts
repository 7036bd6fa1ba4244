import { get } from 'node:http';
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import * as l10n from '@vscode/l10n';
import { connectError, InspectorError } from './errors';
import { formatAddress, type HostPort } from './address';

/** One debuggable target an inspector lists (`/json/list`), with its socket URL made reachable from here. */
export interface InspectorTarget {
  /** Where it was reached, e.g. `127.0.0.1:9229` (the typed host, not the resolved IP). */
  address: string;
  id: string;
  title: string;
  /** The main script, e.g. `file:///app/server.js`. */
  url: string;
  webSocketDebuggerUrl: string;
  /** `node.js/v20.11.0` from `/json/version` when it answered. */
  browser?: string;
}

function httpJson(ip: string, port: number, path: string, timeoutMs: number): Promise<unknown> {
  return new Promise((resolve, reject) => {
    // The inspector refuses Host headers that are not an IP or localhost (DNS rebinding guard), so
    // requests always go to the resolved IP.
    const req = get({ host: ip, port, path, timeout: timeoutMs, headers: { host: formatAddress({ host: ip, port }) } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => {
        body += d;
        if (body.length > 4 << 20) req.destroy(new Error('response too large'));
      });
      res.on('end', () => {
        if (res.statusCode !== 200) return reject(new Error(`HTTP ${res.statusCode}`));
        try {
          resolve(JSON.parse(body));
        } catch {
          reject(new Error('not JSON'));
        }
      });
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(Object.assign(new Error('timed out'), { code: 'ETIMEDOUT' })));
    req.on('error', reject);
  });
}

async function resolveHost(host: string): Promise<string> {
  if (isIP(host)) return host;
  try {
    return (await lookup(host)).address;
  } catch (e) {
    throw connectError(host, e);
  }
}

/**
 * Lists the targets of the inspector at `hp`. The socket URL is rebuilt on the address we reached,
 * because a containerised app reports its own bind address (`0.0.0.0:9229`) rather than the
 * forwarded one.
 */
export async function listTargets(hp: HostPort, timeoutMs = 2000): Promise<InspectorTarget[]> {
  const address = formatAddress(hp);
  const ip = await resolveHost(hp.host);
  let list: unknown;
  try {
    list = await httpJson(ip, hp.port, '/json/list', timeoutMs);
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    if (err.code) throw connectError(address, e);
    throw new InspectorError(
      'not-inspector',
      l10n.t(
        '{0} answers, but not as a Node.js inspector ({1}). Check the port: it must be the one given to --inspect, not the app port.',
        address,
        err.message,
      ),
    );
  }
  if (!Array.isArray(list)) {
    throw new InspectorError(
      'not-inspector',
      l10n.t(
        '{0} answers, but not as a Node.js inspector. Check the port: it must be the one given to --inspect, not the app port.',
        address,
      ),
    );
  }
  let browser: string | undefined;
  try {
    const v = (await httpJson(ip, hp.port, '/json/version', timeoutMs)) as { Browser?: string };
    browser = typeof v?.Browser === 'string' ? v.Browser : undefined;
  } catch {
    // Optional: only used to label the run with the Node version.
  }
  const wsHost = formatAddress({ host: ip, port: hp.port });
  const out: InspectorTarget[] = [];
  for (const t of list as Record<string, unknown>[]) {
    if (typeof t?.webSocketDebuggerUrl !== 'string' || typeof t.id !== 'string') continue;
    const path = t.webSocketDebuggerUrl.replace(/^wss?:\/\/[^/]*/i, '');
    out.push({
      address,
      id: t.id,
      title: typeof t.title === 'string' ? t.title : '',
      url: typeof t.url === 'string' ? t.url : '',
      webSocketDebuggerUrl: `ws://${wsHost}${path}`,
      browser,
    });
  }
  return out;
}

/** Probes ports `from..to` on `host` in parallel; silent about ports with no inspector. */
export async function probeLocalInspectors(host = '127.0.0.1', from = 9229, to = 9239, timeoutMs = 700): Promise<InspectorTarget[]> {
  const ports: number[] = [];
  for (let p = from; p <= to; p++) ports.push(p);
  const found = await Promise.all(ports.map((port) => listTargets({ host, port }, timeoutMs).catch(() => [] as InspectorTarget[])));
  return found.flat();
}

/** `node.js/v20.11.0` → `v20.11.0`. */
export function nodeVersionOf(browser: string | undefined): string | undefined {
  const m = browser && /node(?:\.js)?\/(v?[\d.]+)/i.exec(browser);
  return m ? (m[1].startsWith('v') ? m[1] : `v${m[1]}`) : undefined;
}
