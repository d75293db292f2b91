#!/usr/bin/env bash
# Installs Debian's chromium when /usr/bin/chromium is missing; idempotent.
# Used by the operator console's browser test (apps/parley/test/console.browser.test.ts),
# which drives it headless through playwright-core (Playwright's own browser download
# is not used). The test fails in CI without it and skips loudly elsewhere.
# Exits 0 when /usr/bin/chromium (or PARLEY_CHROMIUM) exists.
set -euo pipefail

BIN="${PARLEY_CHROMIUM:-/usr/bin/chromium}"
if [ -x "$BIN" ]; then
  exit 0
fi

SUDO=''
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then
    SUDO='sudo'
  else
    echo "ensure-chromium: not root and no sudo; install Debian's chromium package by hand" >&2
    exit 1
  fi
fi

export DEBIAN_FRONTEND=noninteractive
install() {
  $SUDO apt-get install -y --no-install-recommends chromium
}

if ! install; then
  # The package lists may be missing or stale (fresh container): refresh once and retry.
  $SUDO apt-get update
  install
fi

if [ ! -x "$BIN" ]; then
  echo "ensure-chromium: chromium installed but $BIN is missing" >&2
  exit 1
fi
"$BIN" --version || true
