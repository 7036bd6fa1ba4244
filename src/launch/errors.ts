import * as l10n from '@vscode/l10n';

export type LaunchErrorCode =
  | 'program-not-found'
  | 'cwd-not-found'
  | 'node-not-found'
  | 'perf-preflight'
  | 'spawn-failed'
  | 'exited-early'
  | 'exit-nonzero'
  | 'port-timeout'
  | 'no-profile'
  | 'run-json';

/** A launch problem the user can fix; `message` already says how (in the editor's terms). */
export class LaunchError extends Error {
  constructor(
    readonly code: LaunchErrorCode,
    message: string,
    /** What a front end needs to word the next step its own way (the CLI has no settings). */
    readonly facts: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'LaunchError';
  }
}

export function programNotFound(program: string): LaunchError {
  return new LaunchError(
    'program-not-found',
    l10n.t(
      'Program not found: {0}. Check the path (the nodeFlame.program setting, or the script after "--" on the command line); relative paths start at the workspace folder.',
      program,
    ),
  );
}

export function cwdNotFound(cwd: string): LaunchError {
  return new LaunchError(
    'cwd-not-found',
    l10n.t('Working directory not found: {0}. Fix the nodeFlame.cwd setting (or the launch configuration\'s "cwd").', cwd),
  );
}

export const nodeNotRunnable = (node: string, detail: string): string =>
  l10n.t('Node.js not found: "{0}" could not be run ({1}).', node, detail);

export function nodeNotFound(node: string, detail: string): LaunchError {
  return new LaunchError(
    'node-not-found',
    `${nodeNotRunnable(node, detail)} ${l10n.t('Install Node.js, or set nodeFlame.nodePath to the full path of the node executable.')}`,
    { node, detail },
  );
}

function tail(lines: string[]): string {
  return lines.length ? '\n' + l10n.t('Last output:') + '\n' + lines.join('\n') : '';
}

export function exitedEarly(code: number | null, signal: string | null, lines: string[]): LaunchError {
  const how = signal ? l10n.t('signal {0}', signal) : l10n.t('code {0}', String(code));
  const hint = outputHint(lines);
  return new LaunchError(
    'exited-early',
    (hint
      ? l10n.t('The app exited ({0}) before it listened on a port, so the load command did not run.', how) + ' ' + hint
      : l10n.t(
          'The app exited ({0}) before it listened on a port, so the load command did not run. Fix the error below, or clear nodeFlame.loadCommand for a script that ends by itself.',
          how,
        )) + tail(lines),
  );
}

export function exitNonZero(code: number | null, signal: string | null, lines: string[]): LaunchError {
  const how = signal ? l10n.t('signal {0}', signal) : l10n.t('code {0}', String(code));
  const hint = outputHint(lines);
  const text = hint
    ? l10n.t('The app exited with {0}.', how) + ' ' + hint
    : l10n.t('The app exited with {0}. Fix the error below and profile again.', how);
  return new LaunchError('exit-nonzero', text + tail(lines));
}

/** How to find what holds a port, with this platform's own tool. */
function portHolderCommand(port: string, platform: NodeJS.Platform): string {
  if (platform === 'win32') return `netstat -ano | findstr :${port}`;
  if (platform === 'darwin') return `lsof -nP -iTCP:${port} -sTCP:LISTEN`;
  return `ss -ltnp 'sport = :${port}'`;
}

/**
 * The next step for the failures a server most often dies of at start, read from its last output:
 * a port another process holds (often an earlier run still going) or one it may not bind.
 */
export function outputHint(lines: string[], platform: NodeJS.Platform = process.platform): string | undefined {
  const text = lines.join('\n');
  const inUse = /\bEADDRINUSE\b/.exec(text);
  if (inUse) {
    const port = /\bEADDRINUSE\b[^\n]*?:(\d+)\b/.exec(text)?.[1] ?? /\bport: (\d+)/.exec(text)?.[1];
    return port
      ? l10n.t(
          'Port {0} is already in use (EADDRINUSE), often by an earlier run of the app that is still going. Stop that process (find it with: {1}), or give the app a free port (nodeFlame.env, e.g. PORT; on the command line: PORT=… node-flame profile …) and profile again.',
          port,
          portHolderCommand(port, platform),
        )
      : l10n.t(
          'The port the app listens on is already in use (EADDRINUSE), often by an earlier run of the app that is still going. Stop that process, or give the app a free port (nodeFlame.env, e.g. PORT) and profile again.',
        );
  }
  const denied = /\blisten EACCES\b[^\n]*?:(\d+)\b/.exec(text);
  if (denied) {
    return l10n.t(
      'The app may not listen on port {0} (EACCES): ports below 1024 need administrator rights. Give the app a port above 1024 (nodeFlame.env, e.g. PORT) and profile again.',
      denied[1],
    );
  }
  return undefined;
}

export function portTimeout(seconds: number, port: number | undefined): LaunchError {
  return new LaunchError(
    'port-timeout',
    port
      ? l10n.t(
          'The app did not accept connections on port {0} within {1} s, so the load command did not run. Check nodeFlame.waitForPort (and the PORT the app uses), or raise nodeFlame.waitForPortTimeout.',
          port,
          seconds,
        )
      : l10n.t(
          'The app did not print a port within {0} s, so the load command did not run. Set nodeFlame.waitForPort (CLI: --port) to the port the app listens on.',
          seconds,
        ),
  );
}

export function noProfile(runDir: string, killed: boolean, diskFull = false): LaunchError {
  return new LaunchError(
    'no-profile',
    diskFull
      ? l10n.t('No profile was written in {0}: the disk that holds it is full. Free some space, or choose another run folder.', runDir)
      : killed
        ? l10n.t(
            'No profile was written in {0}: the app did not stop within the stop timeout and had to be killed. Raise nodeFlame.stopTimeout, or check that the app does not block SIGINT.',
            runDir,
          )
        : l10n.t('No profile was written in {0}. The app may have been killed by a signal or crashed inside node; see its output.', runDir),
  );
}
