import { timeRange, type TimeRange } from '../core/model/timeline';
import * as l10n from '@vscode/l10n';
import { safeRegex, UnsafeRegexError, MAX_REGEX_LENGTH, type Transform } from '../core/model/transforms';
import type { OptionTable } from './args';

/** The call-tree transform options, rows of every command that writes a report; applied in the order given. */
export const TRANSFORM_OPTIONS = {
  focus: {
    type: 'string',
    multiple: true,
    value: 'name',
    help: () =>
      l10n.t(
        'focus on a function: its calls from everywhere become the root, samples without it are dropped (repeatable; transforms apply in the order given)',
      ),
  },
  'focus-subtree': {
    type: 'string',
    multiple: true,
    value: 'a;b;c',
    help: () => l10n.t('keep only the samples under this call path from the root'),
  },
  merge: {
    type: 'string',
    multiple: true,
    value: 'name',
    help: () => l10n.t('merge a function into its callers: its frames go, its time stays with the caller'),
  },
  'merge-package': {
    type: 'string',
    multiple: true,
    value: 'pkg',
    help: () => l10n.t('fold consecutive frames of a package or folder into the first (node_modules/<pkg>, node:internal, a folder)'),
  },
  'collapse-recursion': {
    type: 'string',
    multiple: true,
    value: 'name',
    help: () => l10n.t("fold a function's recursive calls, direct or through others, into its outermost call"),
  },
  drop: { type: 'string', multiple: true, value: 'name', help: () => l10n.t('drop the samples that have this function on the stack') },
  exclude: {
    type: 'string',
    multiple: true,
    value: 'regex',
    help: () => l10n.t('remove frames whose name matches this regular expression (their time goes to the caller)'),
  },
  from: {
    type: 'string',
    value: 'ms',
    help: () => l10n.t("keep only the samples taken at or after this time (ms from the profile's start)"),
  },
  to: { type: 'string', value: 'ms', help: () => l10n.t("keep only the samples taken before this time (ms from the profile's start)") },
  route: {
    type: 'string',
    multiple: true,
    value: 'route',
    help: () =>
      l10n.t(
        'keep only the samples of this HTTP route\'s requests, e.g. "GET /auth" (a launched run; repeatable; "(no request)" for the rest)',
      ),
  },
} satisfies OptionTable;

/** Why a regular expression was refused, in the user's words. */
export function regexProblem(e: UnsafeRegexError): string {
  switch (e.reason) {
    case 'length':
      return l10n.t('longer than {0} characters', MAX_REGEX_LENGTH);
    case 'nested':
      return l10n.t('a repeated group that holds a repetition or an alternation can take exponential time');
    case 'backreference':
      return l10n.t('backreferences are not allowed');
    case 'adjacent':
      return l10n.t('repetitions side by side (like a*a*) can take polynomial time');
    default:
      return e.message;
  }
}

/**
 * The transforms in command-line order, or a problem to report as a usage error. Functions are named
 * by name alone: every function of that name matches.
 */
export function transformsFrom(order: { name: string; value?: string }[]): CliView | string {
  const out: Transform[] = [];
  let from: string | undefined;
  let to: string | undefined;
  const routes: string[] = [];
  for (const { name, value } of order) {
    if (value === undefined || !(name in TRANSFORM_OPTIONS)) continue;
    switch (name as keyof typeof TRANSFORM_OPTIONS) {
      case 'focus':
        out.push({ kind: 'focus-function', fn: { name: value } });
        break;
      case 'focus-subtree':
        out.push({ kind: 'focus-subtree', path: value.split(';').map((n) => ({ name: n })) });
        break;
      case 'merge':
        out.push({ kind: 'merge-function', fn: { name: value } });
        break;
      case 'merge-package':
        out.push({ kind: 'merge-package', package: value });
        break;
      case 'collapse-recursion':
        out.push({ kind: 'collapse-recursion', fn: { name: value } });
        break;
      case 'drop':
        out.push({ kind: 'drop-function', fn: { name: value } });
        break;
      case 'exclude':
        try {
          safeRegex(value);
        } catch (e) {
          return l10n.t('cannot use --exclude "{0}": {1}', value, e instanceof UnsafeRegexError ? regexProblem(e) : (e as Error).message);
        }
        out.push({ kind: 'exclude', regex: value });
        break;
      case 'from':
        from = value;
        break;
      case 'to':
        to = value;
        break;
      case 'route':
        routes.push(value.trim().replace(/\s+/g, ' '));
        break;
    }
  }
  const range = rangeFrom(from, to, ['--from', '--to']);
  if (typeof range === 'string') return range;
  return { transforms: out, ...(range ? { range } : {}), ...(routes.length ? { routes } : {}) };
}

/** The call-tree transforms and the time range a command was given: what the viewer's page holds as two states. */
export interface CliView {
  transforms: Transform[];
  range?: TimeRange;
  /** `--route`: only the samples of these HTTP routes' requests (see model/requests.ts). */
  routes?: string[];
}

/**
 * The one parser of a time range on the command line: `--from`/`--to` (report, profile, attach) and diff's
 * `--before-range from:to` give their two ends here; either may be left out. Undefined when neither is given.
 */
export function rangeFrom(from: string | undefined, to: string | undefined, names: [string, string]): TimeRange | undefined | string {
  if (from === undefined && to === undefined) return undefined;
  const ms = (v: string | undefined, name: string) => {
    if (v === undefined) return undefined;
    const n = Number(v);
    return v.trim() === '' || !Number.isFinite(n) || n < 0 ? name : n;
  };
  const [f, t] = [ms(from, names[0]), ms(to, names[1])];
  if (typeof f === 'string' || typeof t === 'string')
    return l10n.t(
      '{0} wants milliseconds from the profile\'s start (0 or more), not "{1}"',
      String(typeof f === 'string' ? f : t),
      String(typeof f === 'string' ? from : to),
    );
  return timeRange(f, t) ?? l10n.t('{0} ({1}) must be after {2} ({3})', names[1], String(t), names[0], String(f ?? 0));
}
