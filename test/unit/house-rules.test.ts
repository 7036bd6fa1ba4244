// The lint rules that keep the house's walls (eslint.config.mjs) must fail on a deliberate violation.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { repoRoot } from '../helpers/paths';

interface LintMessage {
  ruleId: string | null;
  message: string;
}
interface ESLintLike {
  lintText(code: string, o: { filePath: string }): Promise<{ messages: LintMessage[] }[]>;
}

// Loaded at run time from the project's eslint (not bundled into the test).
const { ESLint } = createRequire(join(repoRoot, 'package.json'))('eslint') as { ESLint: new (o: { cwd: string }) => ESLintLike };
const eslint = new ESLint({ cwd: repoRoot });

async function restricted(file: string, code: string): Promise<string[]> {
  const [r] = await eslint.lintText(code + '\nexport const used = x;\n', { filePath: join(repoRoot, file) });
  return r.messages.filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
}

const cases: [file: string, code: string, banned: boolean][] = [
  ['src/core/model/x.ts', "import { x } from '../importers/cpuprofile';", true],
  ['src/core/model/x.ts', "import { x } from './frame';", false],
  ['src/core/importers/x.ts', "import { x } from '../../launch/launcher';", true],
  ['src/core/importers/x.ts', "import { x } from '../model/profile';", false],
  ['src/core/x.ts', "import * as x from 'vscode';", true],
  ['src/launch/x.ts', "import { x } from '../extension/services';", true],
  ['src/launch/x.ts', "import { x } from '../core/paths';", false],
  ['src/launch/x.ts', "import { x } from './preload/loopDelay';", false],
  ['src/launch/preload/x.ts', "import { x } from '../launcher';", true],
  ['src/launch/preload/x.ts', "import { x } from '../inspector/cdp';", true],
  ['src/launch/preload/x.ts', "import { x } from '../run/processRecords';", false],
  ['src/launch/preload/x.ts', "import { x } from '../../core/safeWrite';", false],
  ['src/launch/run/x.ts', "import { x } from '../command';", true],
  ['src/launch/run/x.ts', "import { x } from '../preload/loopDelay';", false],
  ['src/launch/run/x.ts', "import { x } from '../../extension/services';", true],
  ['src/cli/x.ts', "import { x } from '../extension/services';", true],
  ['webview/x.ts', "import { x } from '../src/core/model/frame';", true],
  ['webview/x.ts', "import { x } from '../src/core/viewer/viewerSession';", true],
  ['webview/x.ts', "import { x } from '../src/core/viewer/protocol';", false],
  ['webview/x.ts', "import { x } from './tree';", false],
  ['webview/offline.ts', "import { x } from '../src/core/viewer/viewerSession';", false],
  ['webview/offline.ts', "import { x } from '../src/extension/services';", true],
];

for (const [file, code, banned] of cases) {
  test(`house rules: ${file} ${banned ? 'may not' : 'may'} ${code.replace(/^import .* from /, 'import ')}`, async () => {
    const msgs = await restricted(file, code);
    assert.equal(msgs.length > 0, banned, msgs.join('; ') || 'no restricted-import message');
  });
}
