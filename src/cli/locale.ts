import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as l10n from '@vscode/l10n';

/** The UI languages Node Flame ships, from a POSIX locale like `ko_KR.UTF-8` or `pt_BR`. */
export function bundleLanguage(locale: string | undefined): string | undefined {
  const l = (locale ?? '').toLowerCase().replace('_', '-');
  if (l.startsWith('ko')) return 'ko';
  if (l.startsWith('ja')) return 'ja';
  if (l.startsWith('pt-br') || l === 'pt') return 'pt-br';
  if (l.startsWith('zh-cn') || l.startsWith('zh-hans') || l === 'zh' || l.startsWith('zh-sg')) return 'zh-cn';
  return undefined;
}

/** The bundle `configureCliLocale` loaded, for a worker thread's messages (undefined: English). */
let loaded: Record<string, unknown> | undefined;
export function cliBundle(): Record<string, unknown> | undefined {
  return loaded;
}

/** Loads the translation bundle for the terminal's locale (`NODE_FLAME_LANG` overrides it), if one ships. */
export function configureCliLocale(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const lang = bundleLanguage(env.NODE_FLAME_LANG || env.LC_ALL || env.LC_MESSAGES || env.LANG);
  if (!lang) return undefined;
  // dist/cli.js → ../l10n/
  const file = join(__dirname, '..', 'l10n', `bundle.l10n.${lang}.json`);
  if (!existsSync(file)) return undefined;
  loaded = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  l10n.config({ contents: loaded as Record<string, string> });
  return lang;
}
