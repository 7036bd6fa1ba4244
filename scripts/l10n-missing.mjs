// Lists, per language, the keys still to translate and the stale ones to drop, against the English
// package.nls.json and l10n/bundle.l10n.json (run `npm run l10n` first). Exits 1 when any language is behind.
// `--json` prints { "<file>": { missing: { key: english }, stale: [key] } } for tools.
// Bundle keys are the English text, so an edit shows as missing + stale; package.nls.json keys are names, so
// l10n/package.nls.translated.json remembers the English the translations were made from, and an edited
// value is listed as `changed`. `--accept` records the current English there once every language has it.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';

const LANGS = ['ko', 'ja', 'pt-br', 'zh-cn'];
const root = new URL('..', import.meta.url);
const read = (p) => (existsSync(new URL(p, root)) ? JSON.parse(readFileSync(new URL(p, root), 'utf8')) : {});
const text = (v) => (typeof v === 'string' ? v : (v?.message ?? ''));
const placeholders = (s) => (s.match(/\{\d+\}/g) ?? []).sort().join(',');

const report = {};
const SNAPSHOT = 'l10n/package.nls.translated.json';
const nls = read('package.nls.json');
const was = read(SNAPSHOT);
const changed = Object.keys(nls).filter((k) => k in was && was[k] !== nls[k]);
if (changed.length) report['package.nls.json'] = { changed: Object.fromEntries(changed.map((k) => [k, { was: was[k], now: nls[k] }])) };

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

if (process.argv.includes('--accept')) {
  const behind = Object.keys(report).filter((f) => f !== 'package.nls.json');
  if (behind.length) {
    console.error(`Not accepted: ${behind.join(', ')} still behind.`);
    process.exit(1);
  }
  writeFileSync(new URL(SNAPSHOT, root), JSON.stringify(nls, null, 2) + '\n');
  console.log(`Recorded the English of ${Object.keys(nls).length} package.nls.json keys in ${SNAPSHOT}.`);
  process.exit(0);
}

if (process.argv.includes('--json')) {
  console.log(JSON.stringify(report, null, 2));
} else if (!Object.keys(report).length) {
  console.log(`All ${LANGS.join(', ')} translations are complete.`);
} else {
  for (const [file, { missing = {}, stale = [], changed = {} }] of Object.entries(report)) {
    if (Object.keys(changed).length) {
      console.log(`${file}: ${Object.keys(changed).length} changed since translated (update every language, then --accept)`);
      for (const [k, { was, now }] of Object.entries(changed)) console.log(`  ~ ${k}\n      was: ${was}\n      now: ${now}`);
      continue;
    }
    console.log(`${file}: ${Object.keys(missing).length} missing, ${stale.length} stale`);
    for (const k of Object.keys(missing)) console.log(`  + ${JSON.stringify(k)}`);
    for (const k of stale) console.log(`  - ${JSON.stringify(k)}`);
  }
}
process.exitCode = Object.keys(report).length ? 1 : 0;
