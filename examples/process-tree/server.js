// HTTP server: each request is answered by the worker process, which does the hot work.
const http = require('node:http');
const { fork } = require('node:child_process');
const { join } = require('node:path');

const worker = fork(join(__dirname, 'worker.js'));
let next = 0;
const waiting = new Map();
worker.on('message', ({ id, result }) => {
  waiting.get(id)?.(result);
  waiting.delete(id);
});

const server = http.createServer((req, res) => {
  const id = next++;
  waiting.set(id, (result) => res.end(`${result}\n`));
  worker.send({ id, n: 150000 });
});
server.listen(Number(process.env.PORT) || 0, '127.0.0.1', () => console.log(`listening on http://localhost:${server.address().port}`));
