// Loaded through NODE_OPTIONS by the corpus test: every Node process and thread that starts writes one line, so the
// test counts what ran from outside the profiler (the profiler's own records are what is being checked).
const { appendFileSync } = require('node:fs');
const { threadId } = require('node:worker_threads');
const file = process.env.NODE_FLAME_CORPUS_RECORD;
if (file) {
  const line = JSON.stringify({ pid: process.pid, ppid: process.ppid, threadId, argv: process.argv.slice(1) });
  appendFileSync(file, line + '\n');
}
