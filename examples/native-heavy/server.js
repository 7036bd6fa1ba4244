// The Devsisters story in miniature: a handler whose time goes into native code. Every /export
// request compresses a large JSON document with zlib at level 9, synchronously, on the main thread
// (where their server scaled images through a native addon). JavaScript profilers only show
// "deflateSync is slow"; perf mode shows which C functions inside zlib do the work.
'use strict';
const http = require('node:http');
const zlib = require('node:zlib');

/** A deterministic ~600 KB JSON document: repetitive like real exports, so deflate searches hard for matches. */
function buildExport(rows) {
  const items = [];
  let seed = 7;
  for (let id = 0; id < rows; id++) {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    items.push({ id, sku: `SKU-${(seed >> 8) % 5000}`, region: ['kr', 'jp', 'br', 'cn'][(seed >> 16) % 4], qty: (seed >> 4) % 100, note: 'restocked from the central warehouse' });
  }
  return Buffer.from(JSON.stringify({ generatedAt: '2024-01-01T00:00:00Z', items }));
}

const document = buildExport(5000);

function compressExport(level) {
  return zlib.deflateSync(document, { level });
}

function handleExport(req, res, url) {
  const level = Math.min(9, Math.max(1, Number(url.searchParams.get('level')) || 9));
  const body = compressExport(level);
  res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'deflate', 'content-length': body.length });
  res.end(body);
}

const server = http.createServer((req, res) => {
  const url = new URL(req.url || '/', 'http://localhost');
  if (url.pathname === '/export') return handleExport(req, res, url);
  res.writeHead(url.pathname === '/' ? 200 : 404, { 'content-type': 'text/plain' });
  res.end('try /export (optionally ?level=1..9)\n');
});

const port = Number(process.env.PORT) || 8080;
server.listen(port, () => console.log(`listening on http://localhost:${port} (${document.length} bytes per export)`));
