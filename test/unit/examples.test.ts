import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../helpers/paths';
import { parseStartScript, splitCommandLine } from '../../src/launch/commandLine';

// What a new user opens first: each example folder must be ready for "Profile Node App" as shipped.
const examples = join(repoRoot, 'examples');
const declared = (
  JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as {
    contributes: { configuration: { properties: Record<string, { enum?: string[] }> } };
  }
).contributes.configuration.properties;

/** VS Code's settings.json allows whole-line comments; these files use no others. */
function settings(name: string): Record<string, unknown> {
  const text = readFileSync(join(examples, name, '.vscode', 'settings.json'), 'utf8');
  return JSON.parse(text.replace(/^\s*\/\/.*$/gm, '')) as Record<string, unknown>;
}

function pkg(name: string): {
  private?: boolean;
  scripts?: Record<string, string>;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
} {
  return JSON.parse(readFileSync(join(examples, name, 'package.json'), 'utf8'));
}

for (const name of ['express-auth', 'typescript-server', 'native-heavy']) {
  test(`examples/${name}: settings name a real program, a port and a load; package.json starts it`, () => {
    const s = settings(name);
    for (const key of Object.keys(s)) assert.ok(key in declared, `${key} is not a Node Flame setting`);
    const program = s['nodeFlame.program'];
    assert.equal(typeof program, 'string');
    assert.ok(existsSync(join(examples, name, program as string)), `${program} exists`);
    const env = s['nodeFlame.env'] as Record<string, string>;
    assert.equal(typeof env.PORT, 'string');
    assert.equal(s['nodeFlame.waitForPort'], Number(env.PORT));
    const load = s['nodeFlame.loadCommand'];
    assert.equal(typeof load, 'string');
    assert.ok(splitCommandLine(load as string).length > 0);
    if (s['nodeFlame.mode'] !== undefined) assert.ok(declared['nodeFlame.mode'].enum!.includes(s['nodeFlame.mode'] as string));
    assert.ok(existsSync(join(examples, name, 'README.md')));

    const p = pkg(name);
    assert.equal(p.private, true);
    const start = parseStartScript(p.scripts?.start ?? '');
    assert.ok(start, `scripts.start is a node command: ${p.scripts?.start}`);
    assert.equal(start.program, program, 'scripts.start runs the same program as the settings');
    // Each dependency the example names resolves from the repository's node_modules.
    for (const dep of Object.keys({ ...p.dependencies, ...p.devDependencies })) {
      assert.ok(existsSync(join(repoRoot, 'node_modules', dep, 'package.json')), `${dep} is installed at the root`);
    }
  });
}

test('examples: the guide app leaves the mode to the user, native-heavy asks for perf, the TS app runs through tsx', () => {
  assert.equal(settings('express-auth')['nodeFlame.mode'], undefined);
  assert.equal(settings('native-heavy')['nodeFlame.mode'], 'perf');
  assert.match(readFileSync(join(examples, 'express-auth', 'load.sh'), 'utf8'), /newUser[\s\S]*autocannon[\s\S]*\/auth/);
  const ts = parseStartScript(pkg('typescript-server').scripts!.start)!;
  assert.deepEqual(ts.loader, ['--import', 'tsx']);
  assert.equal(settings('typescript-server')['nodeFlame.loader'], 'tsx');
});
