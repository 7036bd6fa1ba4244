import { execFileSync, type ChildProcess } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  openSync,
  closeSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
  copyFileSync,
} from 'node:fs';
import { randomBytes } from 'node:crypto';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { chromium, type Browser, type Frame, type Page } from 'playwright-core';
import { artifactsRoot, CHROMIUM_ARGS, chromiumPath, codeServerEntry, defaultVsix, readmeScreenshots, repoRoot } from './paths';
import { freePort, killTree, spawnGroup } from './processes';
import { watchServiceWorkers, type WorkerActivation } from './serviceWorkers';
import { quietSettings } from './settings';
import * as qi from './quickInput';
import * as wb from './workbench';

export interface StartOptions {
  /** Folder to open (absolute, or relative to the repo root). */
  workspace: string;
  /** Extra user settings, merged over the quiet defaults. */
  settings?: Record<string, unknown>;
  /** The .vsix to install; default: the repo's packaged node-flame-<version>.vsix. `false`: install nothing. */
  vsix?: string | false;
  /** Prefix of the artifacts folder (test/e2e/.artifacts/<name>-<rand>/). */
  name?: string;
  /** Whether the workspace is trusted (default true); false opens it in Restricted Mode without a prompt. */
  trusted?: boolean;
  /** How long to wait for code-server and the workbench (default 120 s: a cold start takes about a minute). */
  startTimeoutMs?: number;
  viewport?: { width: number; height: number };
}

export interface LogFile {
  /** Path relative to the user-data-dir's logs folder. */
  path: string;
  text: string;
}

export class VSCode {
  /** Errors the browser side logged to its console (renderer errors are not written to disk in code-server). */
  readonly consoleErrors: string[] = [];
  private closed = false;

  constructor(
    readonly page: Page,
    private readonly browser: Browser,
    private readonly server: ChildProcess,
    /** test/e2e/.artifacts/<name>-<rand>/ */
    readonly dir: string,
    readonly userDataDir: string,
    readonly extensionsDir: string,
    readonly workspace: string,
    readonly url: string,
  ) {
    page.on('console', (m) => {
      if (m.type() === 'error') this.consoleErrors.push(m.text());
    });
    page.on('pageerror', (e) => this.consoleErrors.push(String(e)));
  }

  /** code-server's pid (leader of its process group). */
  get serverPid(): number | undefined {
    return this.server.pid;
  }

  runCommand(title: string, timeoutMs?: number): Promise<void> {
    return qi.runCommand(this.page, title, timeoutMs);
  }
  /**
   * Developer: Reload Window, returning once the workbench has loaded anew. The command returns before the page
   * starts to unload, so a test that looks for the webview right after it can find the old page's frame (CI-24).
   */
  async reloadWindow(): Promise<void> {
    const loaded = this.page.waitForEvent('load', { timeout: 60_000 });
    await this.runCommand('Developer: Reload Window');
    await loaded;
  }
  paletteItems(query: string): Promise<string[]> {
    return qi.paletteItems(this.page, query);
  }
  webviewFrame(selector: string, timeoutMs?: number): Promise<Frame> {
    return wb.webviewFrame(this.page, selector, timeoutMs);
  }
  activeEditor(): Promise<wb.ActiveEditor | undefined> {
    return wb.activeEditor(this.page, this.workspace);
  }
  statusBarTexts(): Promise<string[]> {
    return wb.statusBarTexts(this.page);
  }
  /** Toasts on screen now; `{ all: true }` also reads the ones already hidden in the notification center. */
  notifications(opts: { all?: boolean } = {}): Promise<string[]> {
    return opts.all ? wb.allNotifications(this.page) : wb.notifications(this.page);
  }
  /** The text of the modal dialog on screen, or undefined. */
  dialogMessage(): Promise<string | undefined> {
    return wb.dialogMessage(this.page);
  }
  /** Waits for a modal dialog and presses the button with this label. */
  dialogButton(label: string, timeoutMs?: number): Promise<void> {
    return wb.dialogButton(this.page, label, timeoutMs);
  }
  /** Extensions running in the extension host with VS Code's activation times ("Developer: Show Running Extensions"). */
  runningExtensions(): Promise<wb.RunningExtension[]> {
    return wb.runningExtensions(this.page);
  }
  openFile(relPath: string, timeoutMs?: number): Promise<void> {
    return wb.openFile(this.page, relPath, timeoutMs);
  }

  quickPickItems(): Promise<string[]> {
    return qi.quickPickItems(this.page);
  }
  quickPickSelect(label: string | RegExp, timeoutMs?: number): Promise<void> {
    return qi.quickPickSelect(this.page, label, timeoutMs);
  }
  quickPickType(text: string): Promise<void> {
    return qi.quickPickType(this.page, text);
  }
  quickPickAccept(): Promise<void> {
    return qi.quickPickAccept(this.page);
  }
  quickPickTitle(): Promise<string> {
    return qi.quickInputTitle(this.page);
  }
  quickPickClose(): Promise<void> {
    return qi.quickInputClose(this.page);
  }
  /** Waits for a quick pick / input box to open (e.g. after runCommand). */
  async quickPickWait(timeoutMs?: number): Promise<void> {
    await qi.quickInput(this.page, timeoutMs);
  }
  /** Starts recording service worker activations; the function returns those seen so far. */
  watchServiceWorkers(): Promise<() => WorkerActivation[]> {
    return watchServiceWorkers(this.page);
  }
  /** Console errors saying the page's Content Security Policy refused something (a load, a script, a style). */
  cspViolations(): string[] {
    return this.consoleErrors.filter((e) => /Content Security Policy|Refused to/i.test(e));
  }
  /** Waits until the palette lists a command: contributions are registered a while after the window shows. */
  async waitForCommand(title: string, timeoutMs = 120_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if ((await this.paletteItems(title)).includes(title)) return;
      await this.page.waitForTimeout(1000);
    }
    throw new Error(`"${title}" never appeared in the palette`);
  }
  /** Answers an input box with text and Enter. */
  quickInputAnswer(text: string): Promise<void> {
    return qi.quickInputAnswer(this.page, text);
  }
  /** Answers VS Code's file dialog with a full path (see fileDialogAnswer). */
  fileDialogAnswer(path: string): Promise<void> {
    return qi.fileDialogAnswer(this.page, path);
  }

  /**
   * Saves a PNG into the artifacts folder, and into media/screenshots/<name>.png (for the README)
   * when NODE_FLAME_SCREENSHOTS is set. Returns the artifacts path.
   */
  async screenshot(name: string): Promise<string> {
    const shots = join(this.dir, 'screenshots');
    mkdirSync(shots, { recursive: true });
    const file = join(shots, `${name}.png`);
    await this.page.screenshot({ path: file });
    if (process.env.NODE_FLAME_SCREENSHOTS) {
      mkdirSync(readmeScreenshots, { recursive: true });
      copyFileSync(file, join(readmeScreenshots, `${name}.png`));
    }
    return file;
  }

  /** Every log file VS Code wrote under the user-data-dir (server, extension host, output channels). */
  logs(): LogFile[] {
    const root = join(this.userDataDir, 'logs');
    const out: LogFile[] = [];
    const walk = (d: string): void => {
      for (const n of existsSync(d) ? readdirSync(d) : []) {
        const p = join(d, n);
        if (statSync(p).isDirectory()) walk(p);
        else if (n.endsWith('.log')) out.push({ path: relative(root, p), text: readFileSync(p, 'utf8') });
      }
    };
    walk(root);
    return out;
  }

  /** The extension host's own log (activation errors of extensions land here). */
  extensionHostLog(): string {
    return this.logs()
      .filter((l) => /exthost/i.test(l.path) && /(remoteexthost|exthost)\.log$/i.test(l.path))
      .map((l) => l.text)
      .join('\n');
  }

  /** The "Node Flame" output channel (a log channel, written to disk by the extension host). */
  nodeFlameLog(): string {
    return this.logs()
      .filter((l) => /Node Flame\.log$/.test(l.path))
      .map((l) => l.text)
      .join('\n');
  }

  /** Polls the logs until `pattern` appears; returns the match. */
  async waitForLog(
    pattern: RegExp,
    which: 'nodeFlame' | 'extensionHost' | 'all' = 'nodeFlame',
    timeoutMs = 30_000,
  ): Promise<RegExpExecArray> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const text =
        which === 'nodeFlame'
          ? this.nodeFlameLog()
          : which === 'extensionHost'
            ? this.extensionHostLog()
            : this.logs()
                .map((l) => l.text)
                .join('\n');
      const m = pattern.exec(text);
      if (m) return m;
      if (Date.now() > deadline) throw new Error(`log (${which}) never matched ${pattern} within ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 250));
    }
  }

  /**
   * Closes the browser and kills code-server's whole process tree. Artifacts are removed unless
   * `failed` (a failure screenshot is taken then) or NODE_FLAME_KEEP_ARTIFACTS is set.
   */
  async close(opts: { failed?: boolean } = {}): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (opts.failed) {
      // Only into the artifacts folder: a failure is no README picture.
      mkdirSync(join(this.dir, 'screenshots'), { recursive: true });
      await this.page.screenshot({ path: join(this.dir, 'screenshots', 'failure.png') }).catch(() => undefined);
      writeFileSync(join(this.dir, 'console-errors.txt'), this.consoleErrors.join('\n'));
      // CI keeps only what a test prints: the logs that explain a failure go to the output too.
      const tail = (text: string, n: number) => text.split('\n').filter(Boolean).slice(-n).join('\n');
      console.log(`[e2e] failure: Node Flame log (last 40 lines):\n${tail(this.nodeFlameLog(), 40)}`);
      const hostErrors = this.extensionHostLog()
        .split('\n')
        .filter((l) => /\[error\]|\[warning\]/i.test(l));
      console.log(`[e2e] failure: extension host errors and warnings (last 20):\n${hostErrors.slice(-20).join('\n')}`);
      console.log(`[e2e] failure: page console errors (last 10):\n${this.consoleErrors.slice(-10).join('\n')}`);
    }
    await this.browser.close().catch(() => undefined);
    if (this.server.pid) await killTree(this.server.pid);
    if (!opts.failed && !process.env.NODE_FLAME_KEEP_ARTIFACTS) rmSync(this.dir, { recursive: true, force: true });
    else console.log(`[e2e] artifacts kept in ${this.dir}`);
  }
}

async function waitForHttp(url: string, server: ChildProcess, logFile: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (server.exitCode !== null) throw new Error(`code-server exited with ${server.exitCode}:\n${readFileSync(logFile, 'utf8')}`);
    try {
      const r = await fetch(url);
      if (r.ok) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline)
      throw new Error(`code-server did not answer ${url} within ${timeoutMs} ms:\n${readFileSync(logFile, 'utf8')}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** The test's environment minus what would make code-server talk to an enclosing VS Code. */
function serverEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const k of Object.keys(env)) if (k.startsWith('VSCODE_') || k === 'ELECTRON_RUN_AS_NODE') delete env[k];
  return env;
}

/** Starts code-server with a fresh profile and the packaged extension, and opens it in Chromium. */
export async function startVSCode(opts: StartOptions): Promise<VSCode> {
  if (!existsSync(codeServerEntry)) throw new Error(`code-server not found at ${codeServerEntry}: run bash test/e2e/setup.sh`);
  const timeout = opts.startTimeoutMs ?? 120_000;
  const workspace = isAbsolute(opts.workspace) ? opts.workspace : resolve(repoRoot, opts.workspace);
  const dir = join(artifactsRoot, `${opts.name ?? 'vscode'}-${randomBytes(4).toString('hex')}`);
  const userDataDir = join(dir, 'user-data');
  const extensionsDir = join(dir, 'extensions');
  mkdirSync(join(userDataDir, 'User'), { recursive: true });
  mkdirSync(extensionsDir, { recursive: true });
  const settings = { ...quietSettings(opts.trusted ?? true), ...opts.settings };
  writeFileSync(join(userDataDir, 'User', 'settings.json'), JSON.stringify(settings, null, 2));
  const config = join(dir, 'code-server.yaml');
  writeFileSync(config, 'auth: none\n');

  const vsix = opts.vsix === undefined ? defaultVsix : opts.vsix;
  if (vsix) {
    if (!existsSync(vsix)) throw new Error(`${vsix} not found: run npm run package`);
    const install = [
      codeServerEntry,
      '--config',
      config,
      '--user-data-dir',
      userDataDir,
      '--extensions-dir',
      extensionsDir,
      '--install-extension',
      vsix,
    ];
    // Several people share one checkout: a concurrent `npm run package` may be rewriting the .vsix right now.
    for (let attempt = 1; ; attempt++) {
      try {
        execFileSync(process.execPath, install, { stdio: 'pipe', timeout: 60_000 });
        break;
      } catch (e) {
        if (attempt >= 3) throw new Error(`installing ${vsix} failed: ${String((e as { stderr?: Buffer }).stderr ?? e)}`);
        await new Promise((r) => setTimeout(r, 3_000));
      }
    }
  }

  const port = await freePort();
  const logFile = join(dir, 'code-server.log');
  const fd = openSync(logFile, 'a');
  const server = spawnGroup(
    process.execPath,
    [
      codeServerEntry,
      '--config',
      config,
      '--auth',
      'none',
      '--bind-addr',
      `127.0.0.1:${port}`,
      '--disable-telemetry',
      '--disable-update-check',
      '--disable-getting-started-override',
      '--user-data-dir',
      userDataDir,
      '--extensions-dir',
      extensionsDir,
      ...(opts.trusted === false ? [] : ['--disable-workspace-trust']),
      workspace,
    ],
    { stdio: ['ignore', fd, fd], cwd: workspace, env: serverEnv() },
  );
  closeSync(fd);

  let browser: Browser | undefined;
  try {
    const base = `http://127.0.0.1:${port}`;
    await waitForHttp(`${base}/healthz`, server, logFile, timeout);
    browser = await chromium.launch({
      executablePath: chromiumPath,
      args: CHROMIUM_ARGS,
      timeout,
    });
    const context = await browser.newContext({ viewport: opts.viewport ?? { width: 1400, height: 900 } });
    const page = await context.newPage();
    page.setDefaultTimeout(30_000);
    const url = `${base}/?folder=${encodeURIComponent(workspace)}`;
    const vs = new VSCode(page, browser, server, dir, userDataDir, extensionsDir, workspace, url);
    await page.goto(url, { timeout });
    await wb.waitForWorkbench(page, timeout);
    return vs;
  } catch (e) {
    await browser?.close().catch(() => undefined);
    if (server.pid) await killTree(server.pid);
    console.log(`[e2e] start failed, artifacts kept in ${dir}`);
    throw e;
  }
}

/**
 * Starts VS Code, runs `fn`, and always closes it; on failure keeps the artifacts and a screenshot.
 */
export async function withVSCode<T>(opts: StartOptions, fn: (vs: VSCode) => Promise<T>): Promise<T> {
  const vs = await startVSCode(opts);
  let failed = true;
  try {
    const r = await fn(vs);
    failed = false;
    return r;
  } finally {
    await vs.close({ failed });
  }
}
