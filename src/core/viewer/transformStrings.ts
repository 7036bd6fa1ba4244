import * as l10n from '@vscode/l10n';

/** The page's text for the call-tree transforms and the sandwich view (part of webviewStrings). */
export function transformStrings(): Record<string, string> {
  const t = l10n.t;
  return {
    xfTransforms: t('Transforms'),
    xfComplete: t('Complete profile'),
    xfClear: t('Remove every transform'),
    xfBackTo: t('Go back to this step (the transforms after it are removed)'),
    xfRemove: t('Remove this transform (the others stay)'),
    xfRemoveOne: t('Remove {0}'),
    xfMenu: t('Transforms for {0}'),
    xfFocusFunction: t('Focus on function'),
    xfFocusSubtree: t('Focus on subtree'),
    xfFocusCallers: t('Focus on these callers'),
    xfMergeFunction: t('Merge function'),
    xfMergePackage: t('Merge calls into {0}'),
    xfCollapseRecursion: t('Collapse recursion'),
    xfDrop: t('Drop samples with this function'),
    xfSandwich: t('Sandwich view'),
    xfExclude: t('Exclude'),
    xfExcludePlaceholder: t('Exclude frames matching a regex'),
    xfChipFocus: t('Focus: {0}'),
    xfChipFocusSubtree: t('Focus: {0}'),
    xfChipFocusCallers: t('Focus on callers: {0}'),
    xfChipMerge: t('Merge: {0}'),
    xfChipMergePackage: t('Merge package: {0}'),
    xfChipCollapse: t('Collapse recursion: {0}'),
    xfChipDrop: t('Drop: {0}'),
    xfChipExclude: t('Exclude: /{0}/'),
    xfChipRange: t('Time: {0} – {1}'),
    xfChipRoutes: t('Requests: {0}'),
    regexLength: t('longer than {0} characters'),
    regexNested: t('a repeated group that holds a repetition or an alternation can take exponential time'),
    regexBackreference: t('backreferences are not allowed'),
    swTitle: t('Sandwich: {0}'),
    swCallers: t('Callers'),
    swCallees: t('Callees'),
    swHint: t('Each half zooms on its own · right-click a frame for transforms · Esc closes'),
    close: t('Close'),
  };
}
