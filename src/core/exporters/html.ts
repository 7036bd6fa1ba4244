import type * as Crypto from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import type * as Zlib from 'node:zlib';
import { homedir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import * as l10n from '@vscode/l10n';
import type { Profile } from '../model';
import { findFindings } from '../findings';
import { embedProfile, embedRequests, scriptSafeJson, type EmbeddedProfile } from '../viewer/embed';
import { packTimeline, type EmbeddedTimeline } from '../viewer/embedTimeline';
import { sampleCount } from '../model/mergedTimes';
import { webviewStrings } from '../viewer/strings';
import { rewriteStrings, sharePaths, shareRoot } from '../viewer/shareable';

// Loaded on first use: a report that does not need it (most do not) skips its load at start-up.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const crypto = () => require('node:crypto') as typeof Crypto;
// eslint-disable-next-line @typescript-eslint/no-require-imports
const zlib = () => require('node:zlib') as typeof Zlib;

/**
 * The folder with the built viewer (webview-offline.js, webview.css, codicon.*). The CLI and the extension run
 * from dist/ themselves; tests run from out/test/…, so look upwards for a dist/ that has the viewer.
 */
export function findViewerAssets(from: string = __dirname): string {
  for (let dir = from, i = 0; i < 6; i++, dir = dirname(dir)) {
    if (basename(dir) === 'dist' && existsSync(join(dir, 'webview-offline.js'))) return dir;
    if (existsSync(join(dir, 'dist', 'webview-offline.js'))) return join(dir, 'dist');
  }
  throw new Error(l10n.t('the viewer bundle (dist/webview-offline.js) was not found next to {0}: build it first (npm run build)', from));
}

const sha256 = (text: string) => `'sha256-${crypto().createHash('sha256').update(text, 'utf8').digest('base64')}'`;
const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** Default colours of a light VS Code theme: the viewer's CSS reads them from the theme it runs in. */
const LIGHT_THEME = `:root{--vscode-font-family:system-ui,-apple-system,"Segoe UI",sans-serif;--vscode-font-size:13px;--vscode-editor-font-family:ui-monospace,Menlo,Consolas,monospace;
--vscode-foreground:#3b3b3b;--vscode-editor-background:#ffffff;--vscode-editor-foreground:#3b3b3b;--vscode-descriptionForeground:#717171;
--vscode-panel-border:#e5e5e5;--vscode-focusBorder:#005fb8;--vscode-textLink-foreground:#005fb8;--vscode-errorForeground:#f85149;
--vscode-editorWarning-foreground:#bf8803;--vscode-list-hoverBackground:#f2f2f2;--vscode-list-activeSelectionBackground:#e4e6f1;
--vscode-list-activeSelectionForeground:#000000;--vscode-editorHoverWidget-background:#f8f8f8;--vscode-editorHoverWidget-foreground:#3b3b3b;
--vscode-editorHoverWidget-border:#c8c8c8;--vscode-charts-red:#e51400;--vscode-charts-blue:#1a85ff;--vscode-charts-yellow:#bf8803;
--vscode-charts-orange:#d18616;--vscode-charts-green:#388a34;--vscode-charts-purple:#652d90;--vscode-charts-foreground:#616161;--vscode-charts-lines:#616161;
--vscode-button-background:#005fb8;--vscode-button-foreground:#ffffff;--vscode-button-hoverBackground:#0258a8;--vscode-button-secondaryBackground:#e5e5e5;
--vscode-button-secondaryForeground:#3b3b3b;--vscode-button-secondaryHoverBackground:#cccccc;--vscode-input-background:#ffffff;--vscode-input-foreground:#3b3b3b;
--vscode-input-border:#cecece;--vscode-settings-textInputBackground:#ffffff;--vscode-settings-textInputBorder:#cecece;--vscode-dropdown-background:#ffffff;
--vscode-dropdown-border:#cecece;--vscode-dropdown-foreground:#3b3b3b;--vscode-checkbox-background:#f8f8f8;--vscode-checkbox-border:#cecece;
--vscode-settings-dropdownBackground:#ffffff;--vscode-settings-dropdownBorder:#cecece;--vscode-settings-dropdownForeground:#3b3b3b;--vscode-settings-dropdownListBorder:#c8c8c8;
--vscode-settings-textInputForeground:#3b3b3b;--vscode-checkbox-foreground:#3b3b3b;--vscode-input-placeholderForeground:#767676;--vscode-badge-background:#cccccc;--vscode-badge-foreground:#3b3b3b;
--vscode-list-focusOutline:#005fb8;--vscode-list-highlightForeground:#0066bf;--vscode-widget-shadow:rgba(0,0,0,.16);--vscode-panel-background:#f8f8f8;--vscode-settings-headerBorder:#e5e5e5;
--vscode-panelTitle-activeForeground:#3b3b3b;--vscode-panelTitle-activeBorder:#005fb8;--vscode-panelTitle-inactiveForeground:#717171}
html,body{background:var(--vscode-editor-background)}`;

export interface HtmlOptions {
  /** Name shown in the title and the summary. */
  source?: string;
  /** Folder of webview-offline.js and its CSS (default: found from this bundle's location). */
  assets?: string;
  /** The run's markers and tracks for the Timeline (launch/run/runTimeline), when the profile came from a run folder. */
  timeFacts?: EmbeddedProfile['timeFacts'];
  /** Transforms the page opens with (the profile given is the one before them), shown as chips to undo. */
  transforms?: EmbeddedProfile['transforms'];
  /** The processes the page's picker starts with. */
  threads?: EmbeddedProfile['shownThreads'];
  /** The time range the page's views start with (the Timeline shows it marked). */
  range?: EmbeddedProfile['range'];
  /** The HTTP routes the page's views start with (a run that recorded requests). */
  routes?: string[];
  /** The folder paths are shown relative to when the profile is not a run's (the CLI's cwd, the workspace folder). */
  root?: string;
}

/** The profile's per-sample times for the page's Timeline, gzipped: a million samples take about a megabyte. */
export function embeddedTimeline(profile: Profile): EmbeddedTimeline | undefined {
  const tl = profile.timeline;
  if (!tl || !sampleCount(tl)) return undefined;
  const { header, bytes } = packTimeline(tl);
  return { ...header, data: zlib().gzipSync(bytes).toString('base64') };
}

/**
 * The viewer as one offline page: the webview bundle, its CSS and the codicon font inline, the whole
 * profile as inert JSON, and a CSP that allows nothing but those (no network at all).
 */
export function toHtml(profile: Profile, opts: HtmlOptions = {}): string {
  const dir = opts.assets ?? findViewerAssets();
  const read = (f: string) => readFileSync(join(dir, f), 'utf8');
  const label = basename(opts.source ?? profile.meta.source ?? 'profile');
  // The script sits in the page as text: make sure nothing in it can close or comment out its element.
  const script = read('webview-offline.js')
    .replace(/\r\n?/g, '\n')
    .replace(/<\/(script)/gi, '<\\/$1')
    .replace(/<!--/g, '<\\!--');
  const viewerCss = readFileSync(join(dir, '..', 'media', 'viewer.css'), 'utf8');
  const style = `${LIGHT_THEME}\n${read('webview.css')}\n${viewerCss}`.replace(/\r\n?/g, '\n').replace(/<\/(style)/gi, '<\\/$1');
  const font = readFileSync(join(dir, 'codicon.ttf')).toString('base64');
  const codicons = read('codicon.css').replace(/url\(["']?\.\/codicon\.ttf[^)"']*["']?\)/g, `url("data:font/ttf;base64,${font}")`);
  const codiconHref = `data:text/css;base64,${Buffer.from(codicons).toString('base64')}`;
  const timeline = embeddedTimeline(profile);
  // The page is sent to others: its paths say nothing of this machine's folders (issue 37, item 19).
  const page = rewriteStrings(
    {
      ...embedProfile(profile, label, webviewStrings()),
      findings: findFindings(profile),
      ...(timeline ? { timeline, ...(opts.timeFacts ? { timeFacts: opts.timeFacts } : {}) } : {}),
      ...(opts.transforms?.length ? { transforms: opts.transforms } : {}),
      ...(opts.threads ? { shownThreads: opts.threads } : {}),
      ...(opts.range ? { range: opts.range } : {}),
      ...(timeline && profile.requests ? { requests: embedRequests(profile.requests) } : {}),
      ...(timeline && profile.requests && opts.routes?.length ? { routes: opts.routes } : {}),
    },
    sharePaths(shareRoot(profile.meta.source ?? opts.source, opts.root), homedir()),
    // A route (`GET /root/x`) is a URL's path, not a file's.
    new Set(['timeline', 'strings', 'requests', 'routes']),
  );
  const data = scriptSafeJson(page);
  const csp = [
    "default-src 'none'",
    `script-src ${sha256(script)}`,
    `style-src ${sha256(style)} data:`,
    'font-src data:',
    'img-src data:',
    "connect-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
  // The page's language is its strings' language: each translation names its own tag.
  const lang = l10n.t({
    message: 'en',
    comment: ['The BCP 47 language tag of this translation (the exported HTML page says it is in it)'],
  });
  return `<!DOCTYPE html>
<html lang="${escapeHtml(lang)}">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<meta name="generator" content="node-flame">
<link rel="stylesheet" id="vscode-codicon-stylesheet" href="${codiconHref}">
<style>${style}</style>
<title>${escapeHtml(l10n.t('Flame graph: {0}', label))}</title>
</head>
<body class="vscode-light">
<main><h1 class="sr-only">${escapeHtml(l10n.t('Flame graph: {0}', label))}</h1><div id="app"></div></main>
<script type="application/json" id="node-flame-data">${data}</script>
<script>${script}</script>
</body>
</html>
`;
}
