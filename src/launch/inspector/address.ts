import * as l10n from '@vscode/l10n';
import { InspectorError } from './errors';

export interface HostPort {
  host: string;
  port: number;
}

export const DEFAULT_INSPECTOR_PORT = 9229;

/**
 * Parses what a user types for an inspector: `host:port`, `:port`, a bare port, `[::1]:9229`, or a URL
 * such as `ws://host:port/<id>` or `http://host:port` (the path is ignored; targets come from /json/list).
 */
export function parseAddress(text: string): HostPort {
  let s = text.trim();
  const bad = () =>
    new InspectorError('bad-address', l10n.t('"{0}" is not an inspector address. Type host:port, for example 127.0.0.1:9229.', text));
  if (!s) throw bad();
  const url = /^(?:wss?|https?):\/\/([^/]+)/i.exec(s);
  if (url) s = url[1];
  let host: string;
  let portText: string;
  const v6 = /^\[([^\]]+)\](?::(\d*))?$/.exec(s);
  if (v6) {
    host = v6[1];
    portText = v6[2] ?? '';
  } else if (/^\d+$/.test(s)) {
    host = '';
    portText = s;
  } else {
    const i = s.lastIndexOf(':');
    if (i >= 0 && s.indexOf(':') !== i) throw bad(); // bare IPv6 without brackets: port is ambiguous
    host = i >= 0 ? s.slice(0, i) : s;
    portText = i >= 0 ? s.slice(i + 1) : '';
  }
  if (host && !/^[\w.-]+$/.test(host) && !v6) throw bad();
  const port = portText === '' ? DEFAULT_INSPECTOR_PORT : Number(portText);
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw bad();
  return { host: host || '127.0.0.1', port };
}

export function formatAddress(a: HostPort): string {
  return a.host.includes(':') ? `[${a.host}]:${a.port}` : `${a.host}:${a.port}`;
}
