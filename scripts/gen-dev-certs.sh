#!/usr/bin/env bash
# Development TLS certificates for Parley (draft-zhou §7, "protect this data in transit").
#
#   scripts/gen-dev-certs.sh [DIR]      (default: infra/certs/dev, git-ignored)
#
# Writes, with openssl:
#   ca.crt / ca.key          a development CA (10 years)
#   server.crt / server.key  one certificate for every service, SANs: localhost, 127.0.0.1, ::1 and the
#                            compose/k8s service names (registry, negotiation, execution, semantic-pool,
#                            evolution, gateway, nats); usable as a server and as a client certificate
#   client.crt / client.key  a client certificate (CN=parley-client) for tools and agents
#
# Idempotent: files that exist are kept (delete DIR to start over). Then point the services at them:
#   PARLEY_TLS_CERT=DIR/server.crt PARLEY_TLS_KEY=DIR/server.key PARLEY_TLS_CA=DIR/ca.crt
# These are for development and tests only: never use them in production.
set -euo pipefail

DIR="${1:-infra/certs/dev}"
DAYS=825
command -v openssl >/dev/null || { echo "openssl is required" >&2; exit 1; }
mkdir -p "$DIR"
umask 077
wrote=()
kept=()

if [[ -s "$DIR/ca.crt" && -s "$DIR/ca.key" ]]; then
  kept+=("$DIR/ca.crt" "$DIR/ca.key")
else
  openssl req -x509 -newkey rsa:2048 -nodes -sha256 -days 3650 \
    -keyout "$DIR/ca.key" -out "$DIR/ca.crt" -subj "/CN=Parley Dev CA" \
    -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" 2>/dev/null
  wrote+=("$DIR/ca.crt" "$DIR/ca.key")
  # A new CA invalidates the leaf certificates signed by an older one.
  rm -f "$DIR/server.crt" "$DIR/client.crt"
fi

# issue NAME CN EXTENSIONS
issue() {
  local name="$1" cn="$2" ext="$3"
  if [[ -s "$DIR/$name.crt" && -s "$DIR/$name.key" ]]; then
    kept+=("$DIR/$name.crt" "$DIR/$name.key")
    return
  fi
  local tmp
  tmp="$(mktemp -d)"
  printf '%s\n' "$ext" > "$tmp/ext.cnf"
  openssl req -newkey rsa:2048 -nodes -sha256 -keyout "$DIR/$name.key" -out "$tmp/$name.csr" -subj "/CN=$cn" 2>/dev/null
  openssl x509 -req -in "$tmp/$name.csr" -CA "$DIR/ca.crt" -CAkey "$DIR/ca.key" -CAcreateserial -CAserial "$tmp/ca.srl" \
    -out "$DIR/$name.crt" -days "$DAYS" -sha256 -extfile "$tmp/ext.cnf" 2>/dev/null
  rm -rf "$tmp"
  wrote+=("$DIR/$name.crt" "$DIR/$name.key")
}

issue server parley-dev-server "basicConstraints=CA:FALSE
keyUsage=critical,digitalSignature,keyEncipherment
extendedKeyUsage=serverAuth,clientAuth
subjectAltName=DNS:localhost,IP:127.0.0.1,IP:::1,DNS:registry,DNS:negotiation,DNS:execution,DNS:semantic-pool,DNS:evolution,DNS:gateway,DNS:nats"

issue client parley-client "basicConstraints=CA:FALSE
keyUsage=critical,digitalSignature,keyEncipherment
extendedKeyUsage=clientAuth"

# Readable by the service containers (which do not run as this user); the directory stays private to git.
chmod 644 "$DIR"/*.crt "$DIR/server.key" "$DIR/client.key"

for f in "${wrote[@]}"; do echo "wrote $f"; done
for f in "${kept[@]}"; do echo "kept  $f (exists)"; done
echo "PARLEY_TLS_CERT=$DIR/server.crt PARLEY_TLS_KEY=$DIR/server.key PARLEY_TLS_CA=$DIR/ca.crt"
