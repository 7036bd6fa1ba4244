const fastify = require('fastify')({ logger: false });

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

fastify.get('/', async (request, reply) => {
  const rows = makeRows(400, request.id.length + 7).sort((a, b) => b.score - a.score);
  reply.type('text/html');
  return renderTable(rows);
});

fastify.listen({ port: 0, host: '127.0.0.1' }).then((address) => console.log(`Server listening at ${address}`));
