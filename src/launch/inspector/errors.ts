import * as l10n from '@vscode/l10n';

export type InspectorErrorCode =
  | 'bad-address'
  | 'not-found'
  | 'refused'
  | 'timeout'
  | 'not-inspector'
  | 'no-targets'
  | 'rejected'
  | 'lost'
  | 'protocol'
  | 'signal'
  | 'no-process'
  | 'not-node';

/** A failure talking to an inspector, with the message already saying what to do next. */
export class InspectorError extends Error {
  constructor(
    readonly code: InspectorErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'InspectorError';
  }
}

/** Turns a socket-level failure for `address` into an InspectorError that names the next step. */
export function connectError(address: string, e: unknown): InspectorError {
  if (e instanceof InspectorError) return e;
  const code = (e as NodeJS.ErrnoException).code;
  if (code === 'ECONNREFUSED') {
    return new InspectorError(
      'refused',
      l10n.t(
        'Nothing is listening on {0}. Start the app with --inspect=<host>:<port> (in a container: --inspect=0.0.0.0:9229 and publish the port), or pick a local process to enable its inspector.',
        address,
      ),
    );
  }
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') {
    return new InspectorError('not-found', l10n.t('The host in {0} is unknown. Check the address (host:port).', address));
  }
  if (code === 'ETIMEDOUT' || code === 'EHOSTUNREACH' || code === 'ENETUNREACH') {
    return new InspectorError(
      'timeout',
      l10n.t('{0} did not answer. Check the address, that the port is published or forwarded, and that no firewall blocks it.', address),
    );
  }
  if (code === 'ECONNRESET' || code === 'EPIPE') {
    return new InspectorError(
      'lost',
      l10n.t('The connection to {0} was closed while connecting. Check that the address is a Node.js inspector port.', address),
    );
  }
  return new InspectorError('protocol', l10n.t('Cannot talk to the inspector on {0}: {1}', address, (e as Error).message ?? String(e)));
}
