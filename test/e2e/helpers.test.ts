// Checks the e2e toolkit itself against built-in VS Code features, so feature tests can rely on it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually, startVSCode, withVSCode } from './helpers';

function workspace(): string {
  const ws = mkdtempSync(join(tmpdir(), 'nf-e2e-helpers-'));
  mkdirSync(join(ws, 'src'));
  writeFileSync(
    join(ws, 'src', 'server.js'),
    ['// line 1', 'const a = 1;', 'const b = 2;', 'const c = 3;', 'module.exports = { a, b, c };', ''].join('\n'),
  );
  writeFileSync(join(ws, 'NOTES.md'), '# Hello from e2e\n\nSome text.\n');
  return ws;
}

/** Pids whose command line mentions the folder (what an orphaned code-server or chromium would show). */
function processesMentioning(dir: string): number[] {
  const out: number[] = [];
  for (const n of readdirSync('/proc')) {
    if (!/^\d+$/.test(n) || Number(n) === process.pid) continue;
    try {
      if (readFileSync(`/proc/${n}/cmdline`, 'utf8').includes(dir)) out.push(Number(n));
    } catch {
      // exited meanwhile
    }
  }
  return out;
}

test('helpers: open a file, go to a line, read editor and status bar, find a webview frame, clean up', { timeout: 300_000 }, async () => {
  const ws = workspace();
  const vs = await startVSCode({ workspace: ws, name: 'helpers', vsix: false, settings: { 'editor.fontSize': 13 } });
  let failed = true;
  try {
    assert.equal(JSON.parse(readFileSync(join(vs.userDataDir, 'User', 'settings.json'), 'utf8'))['editor.fontSize'], 13);

    await vs.openFile('src/server.js');
    await eventually(
      () => vs.activeEditor(),
      (ed) => assert.deepEqual(ed, { file: 'src/server.js', path: join(ws, 'src', 'server.js'), line: 1, column: 1 }),
    );

    await vs.runCommand('Go to Line/Column...');
    await vs.quickPickWait();
    // Go to Line is a quick access with the ':' prefix; answering replaces the whole text.
    await vs.quickInputAnswer(':4');
    // The cursor moves after the quick input closes; on a loaded machine that can take a moment. Editor and
    // status bar are read together, each read checked as a whole.
    await eventually(
      async () => [await vs.activeEditor(), await vs.statusBarTexts()] as const,
      ([ed, bar]) => {
        assert.equal(ed?.line, 4);
        assert.ok(
          bar.some((t) => t.startsWith('Ln 4, Col 1')),
          JSON.stringify(bar),
        );
      },
    );

    // A modal dialog: formatting a file type without a formatter asks to install one.
    await vs.openFile('NOTES.md');
    await vs.runCommand('Format Document');
    await eventually(
      () => vs.dialogMessage(),
      (m) => assert.match(m ?? '', /no formatter for 'markdown'/),
    );
    await vs.dialogButton('Cancel');
    await eventually(
      () => vs.dialogMessage(),
      (m) => assert.equal(m, undefined),
    );

    // A quick pick with items: the palette's own list.
    await vs.page.keyboard.press('F1');
    await vs.quickPickType('>View: Toggle Word Wrap');
    await eventually(
      () => vs.quickPickItems(),
      (items) => assert.ok(items.includes('View: Toggle Word Wrap'), JSON.stringify(items)),
    );
    await vs.quickPickClose();

    // A webview: the built-in Markdown preview.
    await vs.openFile('NOTES.md');
    await vs.runCommand('Markdown: Open Preview');
    const frame = await vs.webviewFrame('h1', 60_000);
    await eventually(
      () => frame.locator('h1').innerText(),
      (t) => assert.equal(t.trim(), 'Hello from e2e'),
    );
    await vs.screenshot('helpers-markdown');
    failed = false;
  } finally {
    const pid = vs.serverPid;
    await vs.close({ failed });
    rmSync(ws, { recursive: true, force: true });
    if (!failed) {
      assert.ok(pid);
      assert.throws(() => process.kill(pid, 0), 'code-server still running after close()');
      assert.deepEqual(processesMentioning(vs.dir), [], 'processes of this VS Code survived close()');
    }
  }
});

test('helpers: an untrusted workspace opens in Restricted Mode without a prompt', { timeout: 300_000 }, async () => {
  const ws = workspace();
  try {
    await withVSCode({ workspace: ws, name: 'untrusted', vsix: false, trusted: false }, async (vs) => {
      await vs.page.locator('.part.statusbar').getByText('Restricted Mode').waitFor({ timeout: 30_000 });
      await eventually(
        () => vs.statusBarTexts(),
        (bar) =>
          assert.ok(
            bar.some((t) => t.includes('Restricted Mode')),
            JSON.stringify(bar),
          ),
      );
    });
  } finally {
    rmSync(ws, { recursive: true, force: true });
  }
});
