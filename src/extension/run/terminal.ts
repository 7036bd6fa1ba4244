import * as vscode from 'vscode';

/**
 * The profiled app's terminal. The app's stdio are pipes, not a tty, so this terminal echoes what the
 * user types and sends it line by line; Ctrl+C stops the run like the Stop button.
 */
export class RunTerminal implements vscode.Pseudoterminal, vscode.Disposable {
  private readonly writeEmitter = new vscode.EventEmitter<string>();
  private readonly closeEmitter = new vscode.EventEmitter<number | void>();
  readonly onDidWrite = this.writeEmitter.event;
  readonly onDidClose = this.closeEmitter.event;
  private opened = false;
  private pending: string[] = [];
  private line = '';
  private finished = false;
  readonly terminal: vscode.Terminal;

  constructor(
    name: string,
    private readonly input: { write(data: string): void; stop(): void },
  ) {
    this.terminal = vscode.window.createTerminal({ name, pty: this, iconPath: new vscode.ThemeIcon('flame') });
  }

  open(): void {
    this.opened = true;
    for (const p of this.pending) this.writeEmitter.fire(p);
    this.pending = [];
  }

  /** The user closed the terminal: a running app is stopped, as closing a terminal would. */
  close(): void {
    if (!this.finished) this.input.stop();
  }

  write(text: string, style?: 'info' | 'error' | 'load'): void {
    let t = text.replace(/\r?\n/g, '\r\n');
    if (style === 'info') t = `\x1b[2m${t}\x1b[0m`;
    else if (style === 'error') t = `\x1b[31m${t}\x1b[0m`;
    else if (style === 'load') t = `\x1b[36m${t}\x1b[0m`;
    if (this.opened) this.writeEmitter.fire(t);
    else this.pending.push(t);
  }

  handleInput(data: string): void {
    if (this.finished) {
      this.closeEmitter.fire();
      return;
    }
    for (const ch of data) {
      if (ch === '\x03') {
        this.write('^C\n');
        this.input.stop();
      } else if (ch === '\r') {
        this.writeEmitter.fire('\r\n');
        this.input.write(this.line + '\n');
        this.line = '';
      } else if (ch === '\x7f' || ch === '\b') {
        if (this.line) {
          this.line = this.line.slice(0, -1);
          this.writeEmitter.fire('\b \b');
        }
      } else if (ch >= ' ') {
        this.line += ch;
        this.writeEmitter.fire(ch);
      }
    }
  }

  /** The run is over: the terminal stays for reading and closes on the next key. */
  finish(message: string): void {
    this.finished = true;
    this.write('\n' + message + '\n', 'info');
  }

  dispose(): void {
    this.writeEmitter.dispose();
    this.closeEmitter.dispose();
  }
}
