// speedscope (npm `speedscope`, its own release build) run on the bench's file in the same Chromium the e2e tests use:
// the page is served from localhost and given the file by `#profileURL=`, and the time from navigation to its profile
// drawn is taken, as the editor bench takes Node Flame's command → painted. Not CI.
import { execFileSync } from 'node:child_process';
import { createReadStream, existsSync, mkdirSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize } from 'node:path';
import { chromium } from 'playwright-core';
import { CHROMIUM_ARGS, chromiumPath, e2eCache } from '../e2e/helpers/paths';

export const SPEEDSCOPE_VERSION = '1.25.0';

/** speedscope's release folder, unpacked from the registry's tarball once (it has no dependencies to install). */
function speedscopeRelease(): string {
  const dir = join(e2eCache, `speedscope-${SPEEDSCOPE_VERSION}`);
  const release = join(dir, 'package', 'dist', 'release');
  if (existsSync(join(release, 'index.html'))) return release;
  mkdirSync(dir, { recursive: true });
  const tgz = execFileSync('npm', ['pack', `speedscope@${SPEEDSCOPE_VERSION}`, '--silent'], { cwd: dir, encoding: 'utf8' }).trim();
  execFileSync('tar', ['xzf', tgz], { cwd: dir });
  return release;
}

const TYPES: Record<string, string> = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.wasm': 'application/wasm' };

/** Load + first render of `file` in speedscope, in ms, or why it could not (out of memory, its own error, timeout). */
export async function speedscopeFirstRender(file: string, timeoutMs = 600_000): Promise<{ ms: number } | { error: string }> {
  const release = speedscopeRelease();
  const server = createServer((req, res) => {
    const path = decodeURIComponent((req.url ?? '/').split(/[?#]/)[0]);
    const local = path === '/profile.cpuprofile' ? file : join(release, normalize(path).replace(/^(\.\.[/\\])+/, ''));
    if (!existsSync(local) || !statSync(local).isFile()) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': TYPES[extname(local)] ?? 'application/octet-stream' });
    createReadStream(local).pipe(res);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const browser = await chromium.launch({ executablePath: chromiumPath, args: CHROMIUM_ARGS });
  try {
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    let crashed = false;
    page.on('crash', () => (crashed = true));
    const t0 = Date.now();
    await page.goto(`${base}/index.html#profileURL=${encodeURIComponent(`${base}/profile.cpuprofile`)}&title=big`);
    // speedscope names the document after the profile once it is imported, then draws the flame chart.
    const state = await page
      .waitForFunction(
        () =>
          document.title.endsWith('- speedscope') ? 'loaded' : document.body.innerText.includes('Something went wrong') ? 'error' : false,
        undefined,
        { timeout: timeoutMs, polling: 50 },
      )
      .then((h) => h.jsonValue() as Promise<string>)
      .catch((e: Error) => (crashed ? 'crashed' : `no answer: ${e.message.split('\n')[0]}`));
    if (state !== 'loaded') return { error: state === 'crashed' ? 'the page crashed (out of memory)' : state };
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    const hasCanvas = await page.evaluate(() => document.querySelectorAll('canvas').length > 0);
    if (!hasCanvas) return { error: 'no flame chart drawn' };
    return { ms: Date.now() - t0 };
  } finally {
    await browser.close().catch(() => undefined);
    server.close();
  }
}
