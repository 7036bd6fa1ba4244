// A small HTTP server with no framework: GET /report?rows=N renders an HTML table with sparklines.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { makeRows } from './data';
import { renderPage } from './render';

const MAX_ROWS = 2000;

function handleReport(_req: IncomingMessage, res: ServerResponse, url: URL): void {
  const count = Math.min(MAX_ROWS, Math.max(1, Number(url.searchParams.get('rows')) || 50));
  const html = renderPage({ title: `Report (${count} rows)`, rows: makeRows(count) });
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html);
}

const server = createServer((req, res) => {
  const url = new URL(req.url ?? '/', 'http://localhost');
  if (url.pathname === '/report') return handleReport(req, res, url);
  res.writeHead(url.pathname === '/' ? 200 : 404, { 'content-type': 'text/plain' }).end('try /report?rows=50\n');
});

const port = Number(process.env.PORT) || 8080;
server.listen(port, () => console.log(`listening on http://localhost:${port}`));
