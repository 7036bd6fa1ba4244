#!/usr/bin/env node
// The CLI `npm start` runs from node_modules/.bin: it forks the HTTP server and waits for it.
const { fork } = require('node:child_process');
const { join } = require('node:path');

const server = fork(join(__dirname, '..', 'server.js'), process.argv.slice(2));
server.on('exit', (code) => process.exit(code ?? 0));
