// A cluster of 2 workers sharing one port; each request does the hot work in its worker.
const cluster = require('node:cluster');
const http = require('node:http');

function spin(ms) {
  const end = Date.now() + ms;
  let x = 0;
  while (Date.now() < end) x += Math.sqrt(x + 1);
  return x;
}

if (cluster.isPrimary) {
  let up = 0;
  for (let i = 0; i < 2; i++) cluster.fork();
  cluster.on('listening', (w, address) => {
    if (++up === 2) console.log(`listening on http://localhost:${address.port}`);
  });
} else {
  http.createServer((req, res) => res.end(`${process.pid} ${spin(20)}\n`)).listen(Number(process.env.PORT) || 0, '127.0.0.1');
}
