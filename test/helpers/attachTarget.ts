// A small HTTP server with one hot handler: the process that the attach tests profile through its inspector.
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

// The hot handler sits on a known line so the profile can be checked at file:line; the empty inline
// source map lets the inspector report a sourceMapURL.
const SERVER = `'use strict';
const http = require('http');
function hotHandler(req, res) {
  let x = 0;
  for (let i = 0; i < 3e6; i++) x += Math.sqrt(i) * Math.sin(i);
  res.end(String(x));
}
const server = http.createServer((req, res) => hotHandler(req, res));
server.listen(0, '127.0.0.1', () => console.log('LISTENING ' + server.address().port));
//# sourceMappingURL=data:application/json;base64,eyJ2ZXJzaW9uIjozLCJzb3VyY2VzIjpbXSwibWFwcGluZ3MiOiIifQ==
`;
/** 1-based line of `function hotHandler`. */
export const HOT_LINE = 3;
/** 1-based line of its loop. */
export const LOOP_LINE = 5;

export interface TargetServer {
  child: ChildProcess;
  script: string;
  /** The HTTP port, once the server listens; rejects if it exits first. */
  listening: Promise<number>;
}

/**
 * Writes `server.js` into `dir` and starts it there with `nodeArgs` (e.g. `--inspect=…`).
 * `spawnWith` lets a caller start it in a process group of its own.
 */
export function startTargetServer(
  dir: string,
  nodeArgs: string[],
  spawnWith: (cmd: string, args: string[], opts: SpawnOptions) => ChildProcess = spawn,
): TargetServer {
  const script = join(dir, 'server.js');
  writeFileSync(script, SERVER);
  const child = spawnWith(process.execPath, [...nodeArgs, script], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += d));
  const listening = new Promise<number>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d) => {
      out += d;
      const m = /LISTENING (\d+)/.exec(out);
      if (m) resolve(Number(m[1]));
    });
    child.on('exit', (c) => reject(new Error(`server exited ${c}: ${stderr}`)));
  });
  return { child, script, listening };
}
