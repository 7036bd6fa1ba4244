import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

export default tseslint.config(
  { ignores: ['dist/**', 'out/**', 'node_modules/**', '.nodeflame/**', 'examples/**/node_modules/**', 'test/fixtures/**', '.vscode-test/**', 'test/e2e/.artifacts/**', 'bench/.work/**', 'media/**'] },
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
  {
    // core, launch and cli run outside VS Code (CLI, worker, tests): they must never load 'vscode'.
    files: ['src/core/**/*.ts', 'src/launch/**/*.ts', 'src/cli/**/*.ts', 'webview/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { paths: [{ name: 'vscode', message: 'Only src/extension may import vscode.' }] }] },
  },
);
