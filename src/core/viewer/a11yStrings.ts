import * as l10n from '@vscode/l10n';

/** The page's text for screen readers, the shortcuts overlay and the Accessible View button (part of webviewStrings). */
export function a11yStrings(): Record<string, string> {
  const t = l10n.t;
  return {
    a11yFrame: t('{0}, {1}, total {2}, self {3}, depth {4}, {5}'),
    a11yView: t('Accessible View'),
    a11yZoomPath: t('Zoom path'),
    a11yTreeSelect: t('Tree shown'),
    a11yTableSelect: t('Table shown'),
    a11yViewHint: t('This view as plain text: the hot path with its shares, the findings, the top functions (Alt+F2)'),
    a11yChart: t('Flame graph: arrow keys move between frames, Space zooms, ? lists the shortcuts'),
    helpButton: t('Keyboard shortcuts (?)'),
    helpTitle: t('Keyboard shortcuts'),
    helpPage: t('Everywhere'),
    helpTab: t('Move between the controls and views'),
    helpHelp: t('Show this list'),
    helpAccessible: t('Open the Accessible View: this view as plain text'),
    helpSearch: t('Search functions (in the tables: filter)'),
    helpFlame: t('Flame graph and inverted view'),
    helpUpDown: t('Move to the caller or the heaviest callee, as drawn'),
    helpLeftRight: t('Move to the previous or next sibling'),
    helpSpace: t('Zoom to the frame'),
    helpEnter: t('Zoom to the frame and open its source'),
    helpEsc: t('Reset the zoom'),
    helpTransforms: t('Focus on function, focus on subtree, merge, merge package, collapse recursion, drop, sandwich'),
    helpMenu: t('The frame’s menu of transforms'),
    helpTables: t('Tables'),
    helpRows: t('Move between rows'),
    helpFold: t('Collapse or expand a row'),
    helpOpen: t('Open the source'),
    helpTimeline: t('Timeline'),
    helpZoom: t('Zoom the chart in or out'),
    helpPan: t('Pan the chart'),
    helpSelect: t('Select a range: Shift+arrows move its end (the first press starts it at the chart’s middle)'),
    helpWhole: t('Show the whole span'),
    helpClear: t('Clear the selected range'),
    tlRangeSaid: t('Selected range: {0} to {1} ({2}).'),
    tlNoRangeSaid: t('No range selected: the views show the whole profile.'),
    tlMarkersSaid: t('Markers: {0}.'),
    tlMarkerAt: t('{0} at {1}'),
  };
}
