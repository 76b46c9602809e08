# The Learning Registry node as a container image. docker-compose.yml builds it and runs it beside
# CouchDB 3.5; on its own: docker build -t lr-node . && docker run -e COUCHDB_URL=... -p 8080:8080 lr-node
# Checked without a Docker engine by `npm run lint:containers` (dockerfile-utils and the project's rules).
ARG NODE_IMAGE=node:20-bookworm-slim

# Stage 1: every dependency (TypeScript is a devDependency) and `npm run build` → dist/.
FROM ${NODE_IMAGE} AS build
WORKDIR /app
# patches/ before `npm ci`: its postinstall (patch-package) applies them to express-pouchdb.
COPY package.json package-lock.json ./
COPY patches/ patches/
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src/ src/
COPY scripts/ scripts/
RUN npm run build

# Stage 2: production dependencies only. patch-package is a dependency (not a devDependency), so
# the postinstall still runs with --omit=dev and the embedded store gets the patched express-pouchdb.
FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production
WORKDIR /app
COPY package.json package-lock.json ./
COPY patches/ patches/
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist/ dist/
# Read at run time from the project root: design documents, the dashboard's own assets, the
# OAI-PMH schemas (tsc copies no .xsd) and the sample corpus of `--sample-data`; bin/ for
# `lr-node` commands in the container (docker compose exec node node bin/lr-node.js ...).
COPY bin/ bin/
COPY design-docs/ design-docs/
COPY public/ public/
COPY src/protocol/oai-pmh/schemas/ src/protocol/oai-pmh/schemas/
COPY samples/ samples/

# The code stays root-owned and read-only to the node; it writes only under DATA_DIR (the embedded
# store and its credential, when COUCHDB_URL is unset).
RUN mkdir -p /data && chown node:node /data
ENV HOST=0.0.0.0 PORT=8080 DATA_DIR=/data
USER node
EXPOSE 8080

# /status reads the store: unhealthy while the node is starting (503) or CouchDB is unreachable.
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 8080) + '/status').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]

# node is PID 1 here: src/main.ts stops gracefully on SIGTERM (compose adds an init for zombies).
# The V8 flags of `npm start` (README "Configuration"): a young generation at half its default
# (session 10) and an old generation that grows to 3x its live size, not up to 4x, before a major
# GC (session 31) keep the node under 300 MB of RSS through a bulk publish of 100,000.
CMD ["node", "--max-semi-space-size=8", "--heap-growing-percent=200", "dist/src/main.js"]
