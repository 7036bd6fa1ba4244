#!/usr/bin/env bash
# Installs what the e2e tests need (Debian chromium, code-server 4.100.3 with its native modules) into a
# cache folder outside the repo, once. code-server is not a project dependency: its postinstall downloads.
set -euo pipefail
CACHE="${NODE_FLAME_E2E_CACHE:-$HOME/.cache/node-flame-e2e}"
CS="$CACHE/node_modules/code-server"
log() { echo "[e2e-setup] $*"; }

need_apt=()
for p in chromium fonts-noto-color-emoji libkrb5-dev libx11-dev libxkbfile-dev libsecret-1-dev pkg-config ripgrep; do
  dpkg -s "$p" >/dev/null 2>&1 || need_apt+=("$p")
done
# node-gyp rebuilds code-server's native modules against this Node's headers (nodedir=/usr).
for c in make g++; do command -v "$c" >/dev/null || { need_apt+=(build-essential); break; }; done
command -v python3 >/dev/null || need_apt+=(python3)
if [ ${#need_apt[@]} -gt 0 ]; then
  log "apt install ${need_apt[*]}"
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi

if [ -f "$CACHE/.ready-4.100.3" ]; then log "code-server cached at $CS"; exit 0; fi
mkdir -p "$CACHE"
cd "$CACHE"
[ -f package.json ] || echo '{"name":"node-flame-e2e-cache","private":true}' > package.json
log "npm install code-server@4.100.3"
npm install --ignore-scripts --no-audit --no-fund code-server@4.100.3 >/dev/null
export npm_config_nodedir=/usr
for d in "$CS/lib/vscode" "$CS/lib/vscode/extensions"; do
  log "npm install in $d"
  (cd "$d" && npm install --omit=dev --ignore-scripts --no-audit --no-fund >/dev/null)
done
for m in @parcel/watcher @vscode/spdlog native-watchdog kerberos node-pty; do
  if [ -d "$CS/lib/vscode/node_modules/$m" ]; then
    log "node-gyp rebuild $m"
    (cd "$CS/lib/vscode/node_modules/$m" && npx --yes node-gyp rebuild >/dev/null 2>&1)
  fi
done
mkdir -p "$CS/lib/vscode/node_modules/@vscode/ripgrep/bin"
ln -sf /usr/bin/rg "$CS/lib/vscode/node_modules/@vscode/ripgrep/bin/rg"
ln -sfn node_modules "$CS/lib/vscode/node_modules.asar"
if [ -f "$CS/lib/vscode/bin/remote-cli/code-linux.sh" ]; then
  ln -sf code-linux.sh "$CS/lib/vscode/bin/remote-cli/code-server"
fi
if [ -f "$CS/lib/vscode/bin/helpers/browser-linux.sh" ]; then
  ln -sf browser-linux.sh "$CS/lib/vscode/bin/helpers/browser.sh"
fi
for a in "$CS/node_modules/argon2" "$CACHE/node_modules/argon2"; do
  if [ -d "$a" ]; then
    log "build argon2 in $a"
    (cd "$a" && npx --yes @mapbox/node-pre-gyp install --fallback-to-build --nodedir=/usr >/dev/null 2>&1 || npx --yes node-gyp rebuild >/dev/null)
  fi
done
touch "$CACHE/.ready-4.100.3"
log "ready: $CS"
