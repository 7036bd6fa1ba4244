/**
 * Splits a command line the way a POSIX shell would for simple cases (quotes, backslashes), stopping
 * at the first operator (`&&`, `||`, `;`, `|`) since only the first command matters to us.
 */
export function splitCommandLine(line: string): string[] {
  const out: string[] = [];
  let cur = '';
  let has = false;
  let i = 0;
  while (i < line.length) {
    const c = line[i];
    if (c === "'") {
      const end = line.indexOf("'", i + 1);
      cur += end < 0 ? line.slice(i + 1) : line.slice(i + 1, end);
      has = true;
      i = end < 0 ? line.length : end + 1;
    } else if (c === '"') {
      i++;
      while (i < line.length && line[i] !== '"') {
        if (line[i] === '\\' && i + 1 < line.length && '"\\$`'.includes(line[i + 1])) i++;
        cur += line[i++];
      }
      has = true;
      i++;
    } else if (c === '\\' && i + 1 < line.length) {
      cur += line[i + 1];
      has = true;
      i += 2;
    } else if (/\s/.test(c)) {
      if (has) out.push(cur);
      cur = '';
      has = false;
      i++;
    } else if (c === ';' || c === '|' || (c === '&' && line[i + 1] === '&')) {
      break;
    } else {
      cur += c;
      has = true;
      i++;
    }
  }
  if (has) out.push(cur);
  return out;
}

/** Node options that take their value as the next argument. */
const NODE_OPTS_WITH_VALUE = new Set([
  '-r',
  '--require',
  '--import',
  '--loader',
  '--experimental-loader',
  '-C',
  '--conditions',
  '--title',
  '--env-file',
  '--stack-size',
  '--max-old-space-size',
  '--inspect-port',
  '--input-type',
]);

export interface NodeCommand {
  /** The node executable as written (`node`, `/usr/bin/node`); undefined when the line starts at the script. */
  node?: string;
  nodeArgs: string[];
  program: string;
  args: string[];
  env: Record<string, string>;
  /** Loader args a `ts-node`/`tsx` runner implies, to put before the program. */
  loader?: string[];
}

const TS_NODE_LOADER = ['-r', 'ts-node/register'];
const TS_NODE_TRANSPILE_ONLY = ['-r', 'ts-node/register/transpile-only'];
const TSX_LOADER = ['--import', 'tsx'];

export function isNodeExecutable(word: string): boolean {
  const base = word.split(/[\\/]/).pop() ?? word;
  return /^node(js)?(\.exe)?$/i.test(base) || /^node\d+$/.test(base);
}

/**
 * Understands `node [opts] app.js args`, `ts-node [opts] src/x.ts`, `tsx [watch] src/x.ts` and a bare
 * script, with leading `VAR=value` assignments; returns undefined for anything else (a bundler, a shell
 * script), which cannot be profiled as one node process. With `anyExecutable` (the CLI, where the user
 * wrote the command) the first word is the node executable whatever its name.
 */
export function parseNodeCommand(words: string[], opts: { anyExecutable?: boolean } = {}): NodeCommand | undefined {
  const env: Record<string, string> = {};
  let i = 0;
  while (i < words.length && /^[A-Za-z_][A-Za-z0-9_]*=/.test(words[i])) {
    const eq = words[i].indexOf('=');
    env[words[i].slice(0, eq)] = words[i].slice(eq + 1);
    i++;
  }
  if (words[i] === 'npx' || words[i] === 'cross-env') {
    i++;
    while (i < words.length && /^[A-Za-z_][A-Za-z0-9_]*=/.test(words[i])) {
      const eq = words[i].indexOf('=');
      env[words[i].slice(0, eq)] = words[i].slice(eq + 1);
      i++;
    }
  }
  const first = words[i];
  if (first === undefined) return undefined;
  let node: string | undefined;
  let loader: string[] | undefined;
  const nodeArgs: string[] = [];
  const looksLikeScript = /\.(c|m)?[jt]sx?$/.test(first);
  if (isNodeExecutable(first) || (opts.anyExecutable && !looksLikeScript && !/^(ts-node(-esm)?|tsx)$/.test(first))) {
    node = first;
    i++;
  } else if (/^ts-node(-esm)?$/.test(first)) {
    i++;
    loader = TS_NODE_LOADER;
    // ts-node's own options: only transpile-only changes how we load it; the others are dropped.
    while (i < words.length && words[i].startsWith('-')) {
      if (words[i] === '-T' || words[i] === '--transpile-only' || words[i] === '--transpileOnly') loader = TS_NODE_TRANSPILE_ONLY;
      else if (['-P', '--project', '-O', '--compiler-options', '-C', '--compiler'].includes(words[i])) i++;
      i++;
    }
  } else if (first === 'tsx') {
    i++;
    loader = TSX_LOADER;
    if (words[i] === 'watch') i++;
  } else if (!looksLikeScript) {
    return undefined;
  }
  while (i < words.length && words[i].startsWith('-') && words[i] !== '--') {
    const w = words[i++];
    nodeArgs.push(w);
    if (NODE_OPTS_WITH_VALUE.has(w) && i < words.length) nodeArgs.push(words[i++]);
  }
  if (words[i] === '--') i++;
  const program = words[i];
  if (program === undefined) return undefined;
  return { node, nodeArgs, program, args: words.slice(i + 1), env, loader };
}

/** `scripts.start` of a package.json, e.g. `NODE_ENV=production node --max-old-space-size=4096 dist/server.js`. */
export function parseStartScript(script: string): NodeCommand | undefined {
  return parseNodeCommand(splitCommandLine(script));
}

export function isTypeScriptFile(program: string): boolean {
  return /\.(c|m)?tsx?$/i.test(program);
}

/** True when the node args already load a TypeScript loader, so we must not add a second one. */
export function hasLoader(nodeArgs: readonly string[]): boolean {
  return nodeArgs.some((a, i) => {
    const next = nodeArgs[i + 1] ?? '';
    const value = a.includes('=') ? a.slice(a.indexOf('=') + 1) : next;
    return (
      /^(-r|--require|--import|--loader|--experimental-loader)(=|$)/.test(a) &&
      /ts-node|tsx|esbuild-register|@swc-node|@esbuild-kit/.test(value)
    );
  });
}

const ENV_ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/;

/**
 * A package's command by its path (`./node_modules/.bin/tsx`, `…/ts-node`): a script run by node, never node itself.
 * Taken for node, it became the `node` of the prof and perf modes' shim, which its `#!/usr/bin/env node` line ran again:
 * the run never started.
 */
function packageCli(path: string): boolean {
  const base = path.split(/[\\/]/).pop() ?? path;
  return /(^|[\\/])node_modules[\\/]/.test(path) || /^(ts-node(-esm)?|tsx)(\.cmd)?$/i.test(base);
}

/**
 * What the words after `node-flame profile --` start: one node program (`node app.js`, `tsx x.ts`,
 * `/opt/node/bin/node app.js`: a path taken for a node executable when a script follows), or else any
 * command (`npm start`, `nodemon app.js`, `./node_modules/.bin/cli`), whose Node processes are all profiled.
 */
export function classifyCommand(words: string[]): { node: NodeCommand } | { command: string[]; env: Record<string, string> } | undefined {
  const strict = parseNodeCommand(words);
  if (strict) return { node: strict };
  const loose = parseNodeCommand(words, { anyExecutable: true });
  if (loose?.node && /[\\/]/.test(loose.node) && !packageCli(loose.node) && /\.(c|m)?[jt]sx?$/.test(loose.program)) return { node: loose };
  const env: Record<string, string> = {};
  let i = 0;
  for (; i < words.length && ENV_ASSIGNMENT.test(words[i]); i++) {
    const eq = words[i].indexOf('=');
    env[words[i].slice(0, eq)] = words[i].slice(eq + 1);
  }
  return i < words.length ? { command: words.slice(i), env } : undefined;
}
