// The corpus's "wrong lines" check is what tells a real program's misplaced frame from a right one: it must accept
// every way real code declares a function at the line V8 gives, and still catch a line that declares none.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { wrongLines, type JsonFunctionRow } from '../helpers/corpusChecks';

test('wrongLines: an arrow function whose destructured parameters span many lines is declared at its `({` line', () => {
  const dir = mkdtempSync(join(tmpdir(), 'nf-checks-'));
  try {
    const file = join(dir, 'config-chain.js');
    // Babel's output for @babel/core's config-chain.js, as its 7.x build lays it out.
    writeFileSync(
      file,
      [
        'function chain(flattenedConfigs, context, dirname) {',
        '    if (flattenedConfigs.some(({',
        '      config: {',
        '        options: {',
        '          ignore,',
        '          only',
        '        }',
        '      }',
        '    }) => shouldIgnore(context, ignore, only, dirname))) {',
        '      return null;',
        '    }',
        '}',
      ].join('\n'),
    );
    const row = (name: string, line: number): JsonFunctionRow => ({
      name,
      file,
      line,
      column: 1,
      category: 'dependency',
      self: 1,
      total: 1,
    });
    const wrong = wrongLines([row('(anonymous)', 2), row('(anonymous)', 10), row('chain', 1), row('chain', 3)], () => true);
    assert.deepEqual(
      wrong.map((w) => `${w.name}:${w.line}`),
      ['(anonymous):10', 'chain:3'],
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
