import * as l10n from '@vscode/l10n';

/** The page's text for the process and thread picker (part of webviewStrings). */
export function processStrings(): Record<string, string> {
  const t = l10n.t;
  return {
    procTitle: t('Processes and threads'),
    procAll: t('all {0} shown'),
    procSome: t('{0} of {1} shown: {2} of the samples'),
    procOnly: t('Only'),
    procOnlyHint: t('Show only this one'),
    procShowAll: t('Show all'),
    procNoSamples: t('no samples'),
    procStarted: t('pid {0}, started {1}'),
    procWaited: t('waited for its child processes ({0} idle): not shown at first'),
    procIdle: t('{0} of its samples idle'),
  };
}
