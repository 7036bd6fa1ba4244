// Regenerates l10n/bundle.l10n.json from every l10n.t(...) call in src/ (the English source of truth).
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { scanSources } from './l10n-scan.mjs';

const bundlePath = new URL('../l10n/bundle.l10n.json', import.meta.url);
execFileSync('npx', ['@vscode/l10n-dev', 'export', '--outDir', './l10n', './src'], { stdio: 'inherit' });

// Add what the exporter cannot see (strings joined with `+`, calls through an alias of l10n.t).
const bundle = JSON.parse(readFileSync(bundlePath, 'utf8'));
const { strings, problems } = scanSources();
let added = 0;
for (const [key, e] of strings) {
  if (key in bundle) continue;
  bundle[key] = e.comment ? { message: e.message, comment: e.comment } : e.message;
  added++;
}
writeFileSync(bundlePath, JSON.stringify(bundle, null, 2) + '\n');
console.log(`Added ${added} strings the exporter missed; the bundle holds ${Object.keys(bundle).length}.`);
for (const p of problems) console.warn(`warning: ${p}`);
