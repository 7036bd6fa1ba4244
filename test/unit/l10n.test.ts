import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { repoRoot } from '../helpers/paths';

const LANGS = ['ko', 'ja', 'pt-br', 'zh-cn'];
const read = (p: string) => JSON.parse(readFileSync(join(repoRoot, p), 'utf8')) as Record<string, string | { message: string }>;
const text = (v: string | { message: string }) => (typeof v === 'string' ? v : v.message);
const placeholders = (s: string) => (s.match(/\{\d+\}/g) ?? []).sort().join(',');

for (const [base, lang] of [
  ['package.nls.json', (l: string) => `package.nls.${l}.json`],
  ['l10n/bundle.l10n.json', (l: string) => `l10n/bundle.l10n.${l}.json`],
] as const) {
  for (const l of LANGS) {
    test(`${lang(l)} translates every key of ${base}`, () => {
      assert.ok(existsSync(join(repoRoot, lang(l))), `${lang(l)} exists`);
      const en = read(base);
      const tr = read(lang(l));
      const missing = Object.keys(en).filter((k) => !(k in tr) || !text(tr[k]).trim());
      assert.deepEqual(missing, [], `missing in ${lang(l)}`);
      const extra = Object.keys(tr).filter((k) => !(k in en));
      assert.deepEqual(extra, [], `stale keys in ${lang(l)}`);
      for (const k of Object.keys(en)) {
        assert.equal(placeholders(text(tr[k])), placeholders(text(en[k])), `placeholders of ${JSON.stringify(k)} in ${lang(l)}`);
      }
    });
  }
}

test('the English bundle holds every l10n.t string in the sources (npm run l10n is up to date)', async () => {
  // The TypeScript parser sees every form a string reaches l10n.t in: quotes of any kind, template literals,
  // `+` chains, the { message, comment } object and aliases such as `const t = vscode.l10n.t`.
  const scan = (await import(pathToFileURL(join(repoRoot, 'scripts/l10n-scan.mjs')).href)) as {
    scanSources(): { strings: Map<string, { where: string }>; problems: string[] };
  };
  const { strings, problems } = scan.scanSources();
  assert.ok(strings.size > 100, `found only ${strings.size} strings: the scan is broken`);
  assert.deepEqual(problems, [], 'l10n.t calls whose text is only known at run time');
  const bundle = read('l10n/bundle.l10n.json');
  const missing = [...strings].filter(([k]) => !(k in bundle)).map(([k, e]) => `${e.where}: ${k}`);
  assert.deepEqual(missing, []);
  const stale = Object.keys(bundle).filter((k) => !strings.has(k));
  assert.deepEqual(stale, [], 'strings in the bundle that no source uses any more');
});

test('the source scan reads every way a string is passed', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'l10n-scan-'));
  try {
    writeFileSync(
      join(dir, 'a.ts'),
      [
        "import * as vscode from 'vscode';",
        "import * as l10n from '@vscode/l10n';",
        "vscode.l10n.t('single {0}', 'x');",
        'l10n.t("double \\"quoted\\"");',
        'l10n.t(`template`);',
        "l10n.t(\n  'joined ' +\n    'lines',\n);",
        "l10n.t({ message: 'with comment', args: [], comment: ['why'] });",
        'const t = vscode.l10n.t;',
        "t('aliased');",
        'l10n.t(`computed ${1}`);',
      ].join('\n'),
    );
    const scan = (await import(pathToFileURL(join(repoRoot, 'scripts/l10n-scan.mjs')).href)) as {
      scanSources(dir: string): { strings: Map<string, unknown>; problems: string[] };
    };
    const { strings, problems } = scan.scanSources(dir);
    assert.deepEqual([...strings.keys()], ['single {0}', 'double "quoted"', 'template', 'joined lines', 'with comment/why', 'aliased']);
    assert.equal(problems.length, 1);
    assert.match(problems[0], /a\.ts:13: .*computed at run time/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('npm run l10n:check agrees: nothing missing or stale, and it names what is', () => {
  const ok = spawnSync(process.execPath, [join(repoRoot, 'scripts/l10n-missing.mjs'), '--json'], { encoding: 'utf8' });
  assert.equal(ok.status, 0, ok.stdout + ok.stderr);
  assert.deepEqual(JSON.parse(ok.stdout), {});
  // Against a copy with one key dropped and one stale key added, it must name both.
  const dir = mkdtempSync(join(tmpdir(), 'l10n-check-'));
  try {
    mkdirSync(join(dir, 'scripts'));
    mkdirSync(join(dir, 'l10n'));
    copyFileSync(join(repoRoot, 'scripts/l10n-missing.mjs'), join(dir, 'scripts/l10n-missing.mjs'));
    for (const f of [
      'package.nls.json',
      ...LANGS.map((l) => `package.nls.${l}.json`),
      'l10n/bundle.l10n.json',
      ...LANGS.map((l) => `l10n/bundle.l10n.${l}.json`),
    ]) {
      copyFileSync(join(repoRoot, f), join(dir, f));
    }
    const ja = read('l10n/bundle.l10n.ja.json');
    const dropped = Object.keys(ja)[0];
    delete ja[dropped];
    ja['no longer used'] = 'x';
    writeFileSync(join(dir, 'l10n/bundle.l10n.ja.json'), JSON.stringify(ja));
    // A manifest string whose English was edited after it was translated is named as changed.
    const was = read('package.nls.json') as Record<string, string>;
    was['command.profile'] = 'Profile Node Application';
    writeFileSync(join(dir, 'l10n/package.nls.translated.json'), JSON.stringify(was));
    const bad = spawnSync(process.execPath, [join(dir, 'scripts/l10n-missing.mjs'), '--json'], { encoding: 'utf8' });
    assert.equal(bad.status, 1);
    assert.deepEqual(Object.keys(JSON.parse(bad.stdout)), ['package.nls.json', 'l10n/bundle.l10n.ja.json']);
    assert.deepEqual(Object.keys(JSON.parse(bad.stdout)['package.nls.json'].changed), ['command.profile']);
    assert.deepEqual(Object.keys(JSON.parse(bad.stdout)['l10n/bundle.l10n.ja.json'].missing), [dropped]);
    assert.deepEqual(JSON.parse(bad.stdout)['l10n/bundle.l10n.ja.json'].stale, ['no longer used']);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
