// The guide's fix: /auth hashes with the asynchronous crypto.pbkdf2, so the event loop stays free.
'use strict';
const crypto = require('crypto');
const express = require('express');

const app = express();
const users = {};

app.get('/newUser', (req, res) => {
  let username = req.query.username || '';
  const password = req.query.password || '';
  username = username.replace(/[^a-zA-Z0-9]/g, '');
  if (!username || !password || users[username]) {
    return res.sendStatus(400);
  }
  const salt = crypto.randomBytes(128).toString('base64');
  const hash = crypto.pbkdf2Sync(password, salt, 10000, 512, 'sha512');
  users[username] = { salt, hash };
  res.sendStatus(200);
});

app.get('/auth', (req, res) => {
  let username = req.query.username || '';
  const password = req.query.password || '';
  username = username.replace(/[^a-zA-Z0-9]/g, '');
  if (!username || !password || !users[username]) {
    return res.sendStatus(400);
  }
  crypto.pbkdf2(password, users[username].salt, 10000, 512, 'sha512', (err, hash) => {
    if (err) return res.sendStatus(500);
    if (users[username].hash.toString() === hash.toString()) {
      res.sendStatus(200);
    } else {
      res.sendStatus(401);
    }
  });
});

const port = Number(process.env.PORT) || 8080;
app.listen(port, () => console.log(`listening on http://localhost:${port}`));
