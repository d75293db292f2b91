#!/usr/bin/env bash
# Development TLS certificates for Parley (draft-zhou §7, "protect this data in transit").
#
#   scripts/gen-dev-certs.sh [DIR]      (default: infra/certs/dev, git-ignored)
#
# Writes, with openssl:
#   ca.crt / ca.key          a development CA (10 years)
#   server.crt / server.key  one certificate for every service, usable as a server and as a client
#                            certificate. SANs: localhost, 127.0.0.1, ::1, and for each service
#                            (registry, negotiation, execution, semantic-pool, evolution, gateway, nats)
#                            its docker-compose name (= the short Kubernetes Service name) and its
#                            Kubernetes DNS names <svc>.<ns>, <svc>.<ns>.svc, <svc>.<ns>.svc.<domain>
#   client.crt / client.key  a client certificate (CN=parley-client) for tools and agents
#
# Environment (optional):
#   PARLEY_K8S_NAMESPACE       namespace of the Kubernetes names (default: parley)
#   PARLEY_K8S_CLUSTER_DOMAIN  cluster domain (default: cluster.local)
#   PARLEY_CERT_EXTRA_SANS     more SANs, comma-separated, e.g. DNS:parley.example.test,IP:10.0.0.5
#
# Idempotent: files that exist are kept (delete DIR to start over), except a server or client
# certificate that expires within a day or, for the server, lacks one of the SANs above: it is
# issued again. docker compose runs this in its `certs` service (into ./infra/certs/dev);
# for Kubernetes, put the result in the Secret parley-tls (infra/README.md, "TLS"):
#   kubectl -n parley create secret generic parley-tls --type=kubernetes.io/tls \
#     --from-file=tls.crt=DIR/server.crt --from-file=tls.key=DIR/server.key --from-file=ca.crt=DIR/ca.crt
# Processes on the host: PARLEY_TLS_CERT=DIR/server.crt PARLEY_TLS_KEY=DIR/server.key PARLEY_TLS_CA=DIR/ca.crt
# These are for development and tests only: never use them in production.
set -euo pipefail

DIR="${1:-infra/certs/dev}"
DAYS=825
NS="${PARLEY_K8S_NAMESPACE:-parley}"
DOMAIN="${PARLEY_K8S_CLUSTER_DOMAIN:-cluster.local}"
SERVICES=(registry negotiation execution semantic-pool evolution gateway nats)
command -v openssl >/dev/null || { echo "openssl is required" >&2; exit 1; }
mkdir -p "$DIR"
umask 077
wrote=()
kept=()

sans=(DNS:localhost IP:127.0.0.1 IP:::1)
for s in "${SERVICES[@]}"; do
  sans+=("DNS:$s" "DNS:$s.$NS" "DNS:$s.$NS.svc" "DNS:$s.$NS.svc.$DOMAIN")
done
if [[ -n "${PARLEY_CERT_EXTRA_SANS:-}" ]]; then
  IFS=',' read -r -a extra <<< "$PARLEY_CERT_EXTRA_SANS"
  for x in "${extra[@]}"; do
    x="${x// /}"
    [[ "$x" =~ ^(DNS|IP):[^,]+$ ]] || { echo "PARLEY_CERT_EXTRA_SANS: \"$x\" is not DNS:name or IP:address" >&2; exit 1; }
    sans+=("$x")
  done
fi
SAN_LIST="$(IFS=','; echo "${sans[*]}")"

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

# The SANs of a certificate, one per line, as DNS:name / IP:address (openssl prints "IP Address:").
cert_sans() {
  openssl x509 -in "$1" -noout -text 2>/dev/null \
    | awk '/X509v3 Subject Alternative Name/ { getline; print }' \
    | tr ',' '\n' | sed -e 's/^ *//' -e 's/ *$//' -e 's/^IP Address:/IP:/' \
    | sed -e 's/^IP:0:0:0:0:0:0:0:1$/IP:::1/'
}

# usable CERT [REQUIRED_SANS]: exists, chains to the CA, valid for another day, has every required SAN.
usable() {
  local crt="$1" want="${2:-}"
  openssl verify -CAfile "$DIR/ca.crt" "$crt" >/dev/null 2>&1 || return 1
  openssl x509 -in "$crt" -noout -checkend 86400 >/dev/null 2>&1 || return 1
  if [[ -n "$want" ]]; then
    local have
    have="$(cert_sans "$crt")"
    local s
    IFS=',' read -r -a need <<< "$want"
    for s in "${need[@]}"; do grep -qxF "$s" <<< "$have" || return 1; done
  fi
  return 0
}

# issue NAME CN EXTENSIONS [REQUIRED_SANS]
issue() {
  local name="$1" cn="$2" ext="$3" want="${4:-}"
  if [[ -s "$DIR/$name.crt" && -s "$DIR/$name.key" ]]; then
    if usable "$DIR/$name.crt" "$want"; then
      kept+=("$DIR/$name.crt" "$DIR/$name.key")
      return
    fi
    echo "re-issuing $DIR/$name.crt (expiring, not signed by $DIR/ca.crt, or missing SANs)"
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
subjectAltName=$SAN_LIST" "$SAN_LIST"

issue client parley-client "basicConstraints=CA:FALSE
keyUsage=critical,digitalSignature,keyEncipherment
extendedKeyUsage=clientAuth"

# Readable by the service containers (which do not run as this user); the directory stays private to git.
# ca.key stays private (0600): nothing but this script needs it.
chmod 644 "$DIR"/*.crt "$DIR/server.key" "$DIR/client.key"

for f in "${wrote[@]}"; do echo "wrote $f"; done
for f in "${kept[@]}"; do echo "kept  $f (exists)"; done
echo "PARLEY_TLS_CERT=$DIR/server.crt PARLEY_TLS_KEY=$DIR/server.key PARLEY_TLS_CA=$DIR/ca.crt"
