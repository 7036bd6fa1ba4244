import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { clampSetting, MAX_TIMER_MS, SETTING_LIMITS, type LimitedSetting } from '../../src/core/settingLimits';
import { repoRoot } from '../helpers/paths';

test('settings that set a limit are held to their range wherever read, and restricted in untrusted workspaces', () => {
  // A repository's .vscode/settings.json: a watchdog turned off, a timer overflowed, no number at all.
  assert.equal(clampSetting('importTimeoutSeconds', 200000), 3600);
  assert.equal(clampSetting('importTimeoutSeconds', 2000000), 3600);
  assert.equal(clampSetting('importTimeoutSeconds', 0), 5);
  assert.equal(clampSetting('importTimeoutSeconds', -1), 5);
  assert.equal(clampSetting('importTimeoutSeconds', '60'), 60);
  assert.equal(clampSetting('importTimeoutSeconds', NaN), 60);
  assert.equal(clampSetting('importTimeoutSeconds', Infinity), 60);
  assert.equal(clampSetting('importTimeoutSeconds', undefined), 60);
  assert.equal(clampSetting('importTimeoutSeconds', 30), 30);
  assert.equal(clampSetting('attach.samplingInterval', 1), 50);
  assert.equal(clampSetting('codeLens.threshold', 1e9), 100);
  const pkg = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8'));
  const props: Record<string, { minimum?: number; maximum?: number; default?: number }> = Object.assign(
    {},
    ...[pkg.contributes.configuration].flat().map((c: { properties: object }) => c.properties),
  );
  const restricted: string[] = pkg.capabilities.untrustedWorkspaces.restrictedConfigurations;
  for (const [name, { min, max, fallback }] of Object.entries(SETTING_LIMITS)) {
    const p = props[`nodeFlame.${name}`];
    assert.ok(p, name);
    assert.deepEqual([p.minimum, p.maximum, p.default], [min, max, fallback], `${name}: package.json declares the same bounds`);
    // Every timer a setting feeds stays within setTimeout's range, with the watchdog's 10× stall factor.
    if (/Timeout|timeout|duration/.test(name)) assert.ok(max * 1000 * 10 <= MAX_TIMER_MS, name);
    if (name !== 'codeLens.threshold') assert.ok(restricted.includes(`nodeFlame.${name}`), `${name} is restricted`);
    assert.equal(clampSetting(name as LimitedSetting, Number.MAX_VALUE), max);
  }
});
