import * as l10n from '@vscode/l10n';
import type { Frame } from '../model';
import { FindingContext, Groups } from './context';
import { pct, THRESHOLDS, type Finding } from './types';

/** V8 names compiled regular expressions `RegExp: <source>` in --prof logs. */
const REGEXP_CODE = 'RegExp: ';
const REGEXP_BUILTIN = /^(?:RegExp[A-Z]\w*|StringPrototype(?:Match|MatchAll|Search|Split|Replace|ReplaceAll))$/;
const REGEXP_NATIVE = /\bv8::internal::(?:RegExp\w*|Irregexp\w*|Runtime_(?:RegExp|StringSplit|StringReplace)\w*|Builtin_RegExp\w*)/;

function isRegExp(f: Frame): boolean {
  if (f.category !== 'v8' && f.category !== 'native') return false;
  return f.name.startsWith(REGEXP_CODE) || REGEXP_BUILTIN.test(f.name) || REGEXP_NATIVE.test(f.name);
}

/** The pattern that ran most below `node`, when the log named it. */
function patternBelow(cx: FindingContext, node: number): string | undefined {
  const w = new Map<string, number>();
  for (const n of cx.subtree(node)) {
    const f = cx.frames[cx.tree.frame[n]];
    if (f?.name.startsWith(REGEXP_CODE))
      w.set(f.name.slice(REGEXP_CODE.length), (w.get(f.name.slice(REGEXP_CODE.length)) ?? 0) + cx.tree.self[n] + 1e-9);
  }
  return [...w].sort((a, b) => b[1] - a[1])[0]?.[0];
}

/** Regular expression work (compiled RegExp code, RegExp builtins, the irregexp engine) dominating under one call site. */
export function regexpHeavy(cx: FindingContext): Finding[] {
  const bySite = new Groups<number[]>();
  for (const n of cx.outermost(isRegExp)) {
    const key = cx.siteKey(n);
    bySite.add(key, cx.total[n], n, []);
    bySite.map.get(key)!.data.push(n);
  }
  const out: Finding[] = [];
  for (const g of bySite.values()) {
    const share = cx.share(g.w);
    if (share < THRESHOLDS.regexp) continue;
    // The heaviest node that names its pattern.
    let pattern: string | undefined;
    for (const n of [...g.data].sort((a, b) => cx.total[b] - cx.total[a])) if ((pattern = patternBelow(cx, n))) break;
    out.push({
      rule: 'regexp',
      severity: share >= THRESHOLDS.regexpWarning ? 'warning' : 'info',
      share,
      message: pattern
        ? l10n.t(
            'The regular expression /{0}/ takes {1} of samples here: look for nested or overlapping quantifiers that backtrack, anchor it, or use string methods instead.',
            pattern,
            pct(share),
          )
        : l10n.t(
            'Regular expressions take {0} of samples here: look for nested or overlapping quantifiers that backtrack, anchor them, or use string methods instead.',
            pct(share),
          ),
      ...cx.place(g.node, g.w),
    });
  }
  return out;
}
