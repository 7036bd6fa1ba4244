// Lists, per language, the keys still to translate and the stale ones to drop, against the English
// package.nls.json and l10n/bundle.l10n.json (run `npm run l10n` first). Exits 1 when any language is behind.
// `--json` prints { "<file>": { missing: { key: english }, stale: [key] } } for tools.
import { existsSync, readFileSync } from 'node:fs';

const LANGS = ['ko', 'ja', 'pt-br', 'zh-cn'];
const root = new URL('..', import.meta.url);
const read = (p) => (existsSync(new URL(p, root)) ? JSON.parse(readFileSync(new URL(p, root), 'utf8')) : {});
const text = (v) => (typeof v === 'string' ? v : (v?.message ?? ''));
const placeholders = (s) => (s.match(/\{\d+\}/g) ?? []).sort().join(',');

const report = {};
for (const [base, of] of [
  ['package.nls.json', (l) => `package.nls.${l}.json`],
  ['l10n/bundle.l10n.json', (l) => `l10n/bundle.l10n.${l}.json`],
]) {
  const en = read(base);
  for (const l of LANGS) {
    const tr = read(of(l));
    const missing = {};
    for (const k of Object.keys(en)) {
      const t = k in tr ? text(tr[k]).trim() : '';
      // A translation whose placeholders differ from the English is as good as missing.
      if (!t || placeholders(t) !== placeholders(text(en[k]))) missing[k] = text(en[k]);
    }
    const stale = Object.keys(tr).filter((k) => !(k in en));
    if (Object.keys(missing).length || stale.length) report[of(l)] = { missing, stale };
  }
}

if (process.argv.includes('--json')) {
  console.log(JSON.stringify(report, null, 2));
} else if (!Object.keys(report).length) {
  console.log(`All ${LANGS.join(', ')} translations are complete.`);
} else {
  for (const [file, { missing, stale }] of Object.entries(report)) {
    console.log(`${file}: ${Object.keys(missing).length} missing, ${stale.length} stale`);
    for (const k of Object.keys(missing)) console.log(`  + ${JSON.stringify(k)}`);
    for (const k of stale) console.log(`  - ${JSON.stringify(k)}`);
  }
}
process.exitCode = Object.keys(report).length ? 1 : 0;
