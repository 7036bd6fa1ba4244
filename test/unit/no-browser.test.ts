// `npm test` runs on a fresh machine: unit and integration tests may need nothing that only the e2e set-up
// installs (Chromium, code-server). Read in the bundles, so an import through a shared helper counts too.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { repoRoot } from '../helpers/paths';

const E2E_ONLY: [RegExp, string][] = [
  [/require\("playwright-core"\)/, 'playwright-core'],
  [/\/usr\/bin\/chromium/, 'the Chromium binary'],
  [/node-flame-e2e/, 'the e2e cache (code-server)'],
  [/code-server/, 'code-server'],
];

function bundles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? bundles(p) : name.endsWith('.test.js') ? [p] : [];
  });
}

test('unit and integration tests use no browser, playwright or code-server (those belong to test/e2e)', () => {
  const self = basename(__filename);
  const files = ['unit', 'integration'].flatMap((d) => bundles(join(repoRoot, 'out', 'test', d))).filter((f) => basename(f) !== self);
  assert.ok(files.length > 20, `only ${files.length} test bundles found under out/test: build first`);
  const uses = files.flatMap((f) => {
    const text = readFileSync(f, 'utf8');
    return E2E_ONLY.filter(([re]) => re.test(text)).map(([, what]) => `${f.slice(repoRoot.length + 1)} uses ${what}`);
  });
  assert.deepEqual(uses, []);
});
