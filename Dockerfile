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
RUN --mount=type=cache,target=/root/.npm \
    npm prune --omit=dev --no-audit --no-fund \
 && test -d libs/contracts/src/gen

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
# Liveness of whichever app runs: HEALTH_PORT, or PORT for the gateway.
HEALTHCHECK --interval=15s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.HEALTH_PORT||process.env.PORT||8080)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["node", "--import", "tsx", "apps/gateway/src/main.ts"]
