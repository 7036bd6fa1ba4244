import * as l10n from '@vscode/l10n';

/** The live run bar's text (webview/live.ts). */
export function liveStrings(): Record<string, string> {
  const t = l10n.t;
  return {
    liveBadge: t('● live'),
    liveFinal: t('final profile'),
    liveMark: t('Mark'),
    liveMarkTitle: t('Drop a marker on the Timeline now'),
    liveMarks: t('{0} marks'),
    liveWindowTitle: t('Show the whole run, or only its last seconds (a rolling window)'),
    liveWindowAll: t('whole run'),
    liveWindowLast: t('last {0} s'),
    liveWindowSince: t('since the restart'),
    liveRestart: t('Restart window'),
    liveRestartTitle: t('Show only what the app does from now on (a marker on the Timeline says where it starts)'),
    liveStop: t('Stop'),
    liveCompareRestart: t('Compare with before the restart'),
  };
}
