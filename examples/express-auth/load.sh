#!/bin/sh
# The guide's load: create a user, then hammer /auth (autocannon stands in for ab).
PORT="${PORT:-8080}"
curl -s "http://localhost:$PORT/newUser?username=matt&password=password" >/dev/null
npx --no-install autocannon -c 20 -a "${REQUESTS:-100}" "http://localhost:$PORT/auth?username=matt&password=password"
