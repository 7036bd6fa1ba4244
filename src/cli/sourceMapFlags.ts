import { isAbsolute, join } from 'node:path';
import * as l10n from '@vscode/l10n';
import { DEFAULT_PATH_OVERRIDES, DEFAULT_RESOLVE_LOCATIONS, type SourceMapOptions } from '../core/sourceMapPaths';
import type { CliValues, OptionTable } from './args';

/** The editor's `nodeFlame.sourceMapPathOverrides` and `nodeFlame.resolveSourceMapLocations`, as flags of every command that reads profiles. */
export const SOURCE_MAP_OPTIONS = {
  'source-map-path-override': {
    type: 'string',
    multiple: true,
    value: 'pattern=path',
    help: () =>
      l10n.t(
        'where the sources a map names live, as in sourceMapPathOverrides: e.g. "webpack://app/*=./src/*" (* the captured rest, ${workspaceFolder} the current folder); added to the defaults (webpack://, meteor://), a same pattern replaces one; repeatable',
      ),
  },
  'resolve-source-map-locations': {
    type: 'string',
    multiple: true,
    value: 'glob',
    help: () =>
      l10n.t(
        'read the maps only of scripts matching this glob, as in resolveSourceMapLocations; "!glob" excludes; only exclusions: added to the default ("**", "!**/node_modules/**"); relative globs are from the current folder; repeatable',
      ),
  },
} satisfies OptionTable;

type Values = CliValues<typeof SOURCE_MAP_OPTIONS>;

/** A glob or path relative to `cwd` made absolute (`dist/**` → `<cwd>/dist/**`); `**…` and absolute ones as they are. */
function anchored(glob: string, cwd: string): string {
  const g = glob.replace(/\$\{workspaceFolder\}/g, cwd.replace(/\\/g, '/'));
  if (g.startsWith('*') || isAbsolute(g) || /^[a-z]:[\\/]/i.test(g)) return g;
  return join(cwd, g).replace(/\\/g, '/');
}

/**
 * The source-map options the flags give, `${workspaceFolder}` being `cwd`; without flags the editor's
 * defaults. A string is the problem with a flag, for a usage error.
 */
export function sourceMapOptionsFrom(values: Values, cwd = process.cwd()): Omit<SourceMapOptions, 'mapPath'> | string {
  const pathOverrides: Record<string, string> = { ...DEFAULT_PATH_OVERRIDES };
  for (const o of values['source-map-path-override'] ?? []) {
    const eq = o.indexOf('=');
    if (eq <= 0 || eq === o.length - 1)
      return l10n.t('--source-map-path-override wants pattern=path, e.g. "webpack://app/*=./src/*", not "{0}"', o);
    pathOverrides[o.slice(0, eq)] = anchored(o.slice(eq + 1), cwd);
  }
  const given = (values['resolve-source-map-locations'] ?? []).filter((g) => g.trim() !== '');
  let resolveLocations: string[] = [...DEFAULT_RESOLVE_LOCATIONS];
  if (given.length) {
    const globs = given.map((g) => (g.startsWith('!') ? '!' + anchored(g.slice(1), cwd) : anchored(g, cwd)));
    resolveLocations = globs.every((g) => g.startsWith('!')) ? [...DEFAULT_RESOLVE_LOCATIONS, ...globs] : globs;
  }
  return { pathOverrides, resolveLocations, workspaceFolder: cwd };
}
