#!/usr/bin/env bash
# Installs yanglint (Debian's libyang2-tools) when it is missing; idempotent.
# Used by libs/an's YANG tests (libs/an/test/yang.test.ts), which fail in CI
# without it and skip loudly elsewhere. Exits 0 when yanglint is on PATH.
set -euo pipefail

if command -v yanglint >/dev/null 2>&1; then
  exit 0
fi

SUDO=''
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then
    SUDO='sudo'
  else
    echo "ensure-yanglint: not root and no sudo; install libyang2-tools by hand" >&2
    exit 1
  fi
fi

export DEBIAN_FRONTEND=noninteractive
install() {
  $SUDO apt-get install -y --no-install-recommends libyang2-tools
}

if ! install; then
  # The package lists may be missing or stale (fresh container): refresh once and retry.
  $SUDO apt-get update
  install
fi

if ! command -v yanglint >/dev/null 2>&1; then
  echo "ensure-yanglint: libyang2-tools installed but yanglint is not on PATH" >&2
  exit 1
fi
yanglint --version || true
