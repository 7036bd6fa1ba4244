import * as l10n from '@vscode/l10n';

/** The page's text for the Timeline tab (part of webviewStrings). */
export function timelineStrings(): Record<string, string> {
  const t = l10n.t;
  return {
    tabTimeline: t('Timeline'),
    tlActivity: t('CPU activity over time'),
    tlTracks: t('Event-loop delay, heap used and run markers'),
    tlChart: t('Call stacks in time order'),
    tlHint: t(
      'Drag on the activity graph (Shift+drag in the chart) to select a range · wheel or +/−: zoom · drag or arrows: pan · 0: whole profile · Esc: clear the range · click: source · Ctrl/Cmd+click: open',
    ),
    tlClear: t('Clear range'),
    tlWhole: t('Whole profile'),
    tlCompare: t('Compare with what follows'),
    tlCompareHint: t('Open a comparison: the selected range (before) against the rest of the profile after it (after)'),
    tlNoTimeFolded: t('Folded stacks carry no times, so this profile has no timeline.'),
    tlNoTimeThreads: t('This profile has several threads or processes without a common clock, so it has no timeline.'),
    tlNoTime: t('This profile has no sample times, so it has no timeline.'),
    tlTruncated: t('Only the longest calls are drawn here; zoom in to see the short ones.'),
    tlStart: t('Start'),
    tlDuration: t('Duration'),
    tlBlocked: t('Event loop blocked up to {0}'),
    tlLoopDelay: t('Event-loop delay (max {0})'),
    tlHeapUsed: t('Heap used (max {0} MB)'),
  };
}
