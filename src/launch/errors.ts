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
  | 'no-profile';

/** A launch problem the user can fix; `message` already says how. */
export class LaunchError extends Error {
  constructor(
    readonly code: LaunchErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'LaunchError';
  }
}

export function programNotFound(program: string): LaunchError {
  return new LaunchError(
    'program-not-found',
    l10n.t('Program not found: {0}. Check the path (the nodeFlame.program setting, or the script after "--" on the command line); relative paths start at the workspace folder.', program),
  );
}

export function cwdNotFound(cwd: string): LaunchError {
  return new LaunchError('cwd-not-found', l10n.t('Working directory not found: {0}. Fix the nodeFlame.cwd setting (or the launch configuration\'s "cwd").', cwd));
}

export function nodeNotFound(node: string, detail: string): LaunchError {
  return new LaunchError(
    'node-not-found',
    l10n.t('Node.js not found: "{0}" could not be run ({1}). Install Node.js, or set nodeFlame.nodePath to the full path of the node executable.', node, detail),
  );
}

function tail(lines: string[]): string {
  return lines.length ? '\n' + l10n.t('Last output:') + '\n' + lines.join('\n') : '';
}

export function exitedEarly(code: number | null, signal: string | null, lines: string[]): LaunchError {
  const how = signal ? l10n.t('signal {0}', signal) : l10n.t('code {0}', String(code));
  return new LaunchError(
    'exited-early',
    l10n.t('The app exited ({0}) before it listened on a port, so the load command did not run. Fix the error below, or clear nodeFlame.loadCommand for a script that ends by itself.', how) + tail(lines),
  );
}

export function exitNonZero(code: number | null, signal: string | null, lines: string[]): LaunchError {
  const how = signal ? l10n.t('signal {0}', signal) : l10n.t('code {0}', String(code));
  return new LaunchError('exit-nonzero', l10n.t('The app exited with {0}. Fix the error below and profile again.', how) + tail(lines));
}

export function portTimeout(seconds: number, port: number | undefined): LaunchError {
  return new LaunchError(
    'port-timeout',
    port
      ? l10n.t('The app did not accept connections on port {0} within {1} s, so the load command did not run. Check nodeFlame.waitForPort (and the PORT the app uses), or raise nodeFlame.waitForPortTimeout.', port, seconds)
      : l10n.t('The app did not print a port within {0} s, so the load command did not run. Set nodeFlame.waitForPort (CLI: --port) to the port the app listens on.', seconds),
  );
}

export function noProfile(runDir: string, killed: boolean): LaunchError {
  return new LaunchError(
    'no-profile',
    killed
      ? l10n.t('No profile was written in {0}: the app did not stop within the stop timeout and had to be killed. Raise nodeFlame.stopTimeout, or check that the app does not block SIGINT.', runDir)
      : l10n.t('No profile was written in {0}. The app may have been killed by a signal or crashed inside node; see its output.', runDir),
  );
}
