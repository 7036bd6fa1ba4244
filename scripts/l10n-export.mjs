// Regenerates l10n/bundle.l10n.json from every l10n.t(...) call in src/ (the English source of truth).
import { execFileSync } from 'node:child_process';
execFileSync('npx', ['@vscode/l10n-dev', 'export', '--outDir', './l10n', './src'], { stdio: 'inherit' });
