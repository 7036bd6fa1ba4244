import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'out/**',
      'node_modules/**',
      '.nodeflame/**',
      'examples/**/node_modules/**',
      'test/fixtures/**',
      '.vscode-test/**',
      'test/e2e/.artifacts/**',
      'bench/.work/**',
      'media/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-eval': 'error',
      'no-implied-eval': 'error',
    },
  },
  {
    files: ['webview/**/*.ts'],
    languageOptions: { globals: { ...globals.browser } },
  },
  // The real-app corpus's programs (test/corpus) are CommonJS apps and mocha suites, run by node, not bundled.
  {
    files: ['test/corpus/**/*.{js,cjs}'],
    languageOptions: { sourceType: 'commonjs', globals: { ...globals.node, ...globals.mocha } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  // The house's walls: data flows launch → importer → model → views, and only src/extension knows VS Code.
  // Each file group gets one no-restricted-imports entry (a later entry for the same file replaces an earlier one).
  ...houseRules(),
);

function houseRules() {
  const vscode = { name: 'vscode', message: 'Only src/extension may import vscode.' };
  const group = (files, patterns, ignores = []) => ({
    files,
    ignores,
    rules: { 'no-restricted-imports': ['error', { paths: [vscode], patterns }] },
  });
  const ban = (glob, message) => ({ group: [glob], message });
  const notExtension = ban('**/extension/**', 'src/extension sits on top: nothing below it may import it.');
  const notCli = ban('**/cli/**', 'src/cli sits on top: nothing below it may import it.');
  const notLaunch = ban('**/launch/**', 'src/core is below src/launch.');
  // The launcher is src/launch's own files and its inspector folder (not preload/ nor run/).
  const notLauncher = (who) => ({
    regex: '^\\.\\./(?:[A-Za-z]+|inspector/.*)$',
    message: `${who}: it may not import the launcher (src/launch/*.ts, src/launch/inspector).`,
  });
  return [
    group(['src/core/**/*.ts'], [notExtension, notCli, notLaunch], ['src/core/model/**']),
    group(
      ['src/core/model/**/*.ts'],
      [notExtension, notCli, notLaunch, ban('**/importers/**', 'The model knows no format: importers build it, not the reverse.')],
    ),
    group(['src/launch/**/*.ts'], [notExtension, notCli], ['src/launch/preload/**', 'src/launch/run/**']),
    // Code that runs inside the profiled app: node's own modules, core and the run folder's records, never the launcher.
    group(['src/launch/preload/**/*.ts'], [notExtension, notCli, notLauncher('src/launch/preload runs inside the app')]),
    // Reading a run folder needs no launcher: the CLI's report and the import worker read runs made elsewhere.
    group(['src/launch/run/**/*.ts'], [notExtension, notCli, notLauncher('src/launch/run reads run folders')]),
    group(['src/cli/**/*.ts'], [notExtension]),
    // The page speaks to the host only through the protocol; offline.ts is the export's own bundle and runs the session.
    group(
      ['webview/**/*.ts'],
      [{ regex: '^(\\.\\./)+src/(?!core/viewer/protocol$)', message: 'The webview imports only src/core/viewer/protocol from src/.' }],
      ['webview/offline.ts'],
    ),
    group(['webview/offline.ts'], [notExtension, notCli, notLaunch]),
  ];
}
