import WebSocket from 'ws';
import * as l10n from '@vscode/l10n';
import { connectError, InspectorError } from './errors';

type Handler = (params: Record<string, unknown>) => void;

interface Pending {
  resolve: (v: unknown) => void;
  reject: (e: Error) => void;
  method: string;
}

/** A Chrome DevTools Protocol session to one inspector target, over the `ws` package. */
export class CdpSession {
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private readonly handlers = new Map<string, Handler[]>();
  private closedWith: InspectorError | undefined;
  private readonly closeListeners: ((e: InspectorError) => void)[] = [];

  private constructor(
    private readonly ws: WebSocket,
    readonly address: string,
  ) {
    ws.on('message', (data) => this.onMessage(data.toString()));
    ws.on('close', () =>
      this.onClosed(
        new InspectorError(
          'lost',
          l10n.t('The connection to {0} was closed (the process exited or the inspector was turned off).', address),
        ),
      ),
    );
    ws.on('error', (e) => this.onClosed(connectError(address, e)));
  }

  static connect(wsUrl: string, address: string, timeoutMs = 5000): Promise<CdpSession> {
    return new Promise((resolve, reject) => {
      // perMessageDeflate off: the inspector does not negotiate it, and profiles are sent once.
      const ws = new WebSocket(wsUrl, { handshakeTimeout: timeoutMs, perMessageDeflate: false, maxPayload: 2 ** 31 - 1 });
      const fail = (e: InspectorError) => {
        ws.removeAllListeners();
        ws.on('error', () => {});
        ws.terminate();
        reject(e);
      };
      ws.once('open', () => {
        ws.removeAllListeners();
        resolve(new CdpSession(ws, address));
      });
      ws.once('unexpected-response', (_req, res) => {
        // Node answers 400 when the target id is stale, and older Node versions refuse a second client.
        fail(
          new InspectorError(
            'rejected',
            l10n.t(
              'The inspector on {0} refused the connection (HTTP {1}). The process may have restarted (pick the target again), or another debugger holds the only session: detach it (Chrome DevTools, an IDE debugger) and retry.',
              address,
              String(res.statusCode),
            ),
          ),
        );
      });
      ws.once('error', (e) => fail(connectError(address, e)));
    });
  }

  get closed(): boolean {
    return this.closedWith !== undefined;
  }

  onClose(listener: (e: InspectorError) => void): void {
    if (this.closedWith) listener(this.closedWith);
    else this.closeListeners.push(listener);
  }

  on(event: string, handler: Handler): void {
    const list = this.handlers.get(event) ?? [];
    list.push(handler);
    this.handlers.set(event, list);
  }

  send<T = Record<string, unknown>>(method: string, params?: Record<string, unknown>): Promise<T> {
    if (this.closedWith) return Promise.reject(this.closedWith);
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject, method });
      this.ws.send(JSON.stringify({ id, method, params: params ?? {} }), (err) => {
        if (err) {
          this.pending.delete(id);
          reject(connectError(this.address, err));
        }
      });
    });
  }

  close(): void {
    if (this.closedWith) return;
    this.onClosed(new InspectorError('lost', l10n.t('The session was closed.')));
    this.ws.close();
  }

  private onMessage(text: string): void {
    let msg: { id?: number; method?: string; params?: Record<string, unknown>; result?: unknown; error?: { message?: string } };
    try {
      msg = JSON.parse(text);
    } catch {
      return;
    }
    if (msg.id !== undefined) {
      const p = this.pending.get(msg.id);
      if (!p) return;
      this.pending.delete(msg.id);
      if (msg.error) p.reject(new InspectorError('protocol', l10n.t('The inspector refused {0}: {1}', p.method, msg.error.message ?? '')));
      else p.resolve(msg.result ?? {});
    } else if (msg.method) {
      for (const h of this.handlers.get(msg.method) ?? []) h(msg.params ?? {});
    }
  }

  private onClosed(e: InspectorError): void {
    if (this.closedWith) return;
    this.closedWith = e;
    for (const p of this.pending.values()) p.reject(e);
    this.pending.clear();
    for (const l of this.closeListeners.splice(0)) l(e);
  }
}
