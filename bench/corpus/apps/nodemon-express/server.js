const express = require('express');

function makeRows(n, seed) {
  const rows = [];
  let x = seed;
  for (let i = 0; i < n; i++) {
    x = (x * 48271) % 2147483647;
    rows.push({ id: i, name: `item-${x.toString(36)}`, score: x % 1000 });
  }
  return rows;
}

function renderTable(rows) {
  let html = '<table>';
  for (const r of rows) html += `<tr><td>${r.id}</td><td>${r.name}</td><td>${r.score}</td></tr>`;
  return html + '</table>';
}

const app = express();
app.get('/', (req, res) => {
  const rows = makeRows(400, req.url.length + 7).sort((a, b) => b.score - a.score);
  res.type('html').send(renderTable(rows));
});
const server = app.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  console.log(`Server listening at http://127.0.0.1:${server.address().port}`);
});
