import { homedir } from 'node:os';
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { repoRoot } from '../../helpers/paths';

export { repoRoot };

/** Where test/e2e/setup.sh installs code-server (outside the repo, shared between runs). */
export const e2eCache = process.env.NODE_FLAME_E2E_CACHE ?? join(homedir(), '.cache', 'node-flame-e2e');
export const codeServerEntry = join(e2eCache, 'node_modules', 'code-server', 'out', 'node', 'entry.js');
export const chromiumPath = process.env.NODE_FLAME_CHROMIUM ?? '/usr/bin/chromium';

/** Per-run folders (user data, extensions, logs, screenshots); gitignored. */
export const artifactsRoot = join(repoRoot, 'test', 'e2e', '.artifacts');
export const readmeScreenshots = join(repoRoot, 'media', 'screenshots');

const pkg = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { name: string; publisher: string; version: string };
export const extensionId = `${pkg.publisher}.${pkg.name}`;
/** What `npm run package` writes. */
export const defaultVsix = join(repoRoot, `${pkg.name}-${pkg.version}.vsix`);

/** Debian's chromium as the e2e tests drive it: no sandbox (root in a container), no GPU, nothing from the network. */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];
