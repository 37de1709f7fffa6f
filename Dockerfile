# The meetings gateway as an image: the same steps as CI (npm ci from the lockfile), then
# `npm run build` (TypeScript to dist/), and a runtime stage with production dependencies only.
# Runs `node dist/src/cli/service.js`; the same image runs the delivery worker with
# `node dist/src/cli/worker.js` (see compose.yaml).
# Node 24 LTS: CI runs the suite on it as well as on the machine's node (.ci/run).
ARG NODE_IMAGE=node:24-bookworm-slim

FROM ${NODE_IMAGE} AS build
WORKDIR /app
# The workspace's manifests first (the engine package is one), so npm ci is cached until they change.
COPY package.json package-lock.json ./
COPY packages/embedded-mongo/package.json packages/embedded-mongo/
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build

FROM ${NODE_IMAGE} AS deps
WORKDIR /app
COPY package.json package-lock.json ./
COPY packages/embedded-mongo/package.json packages/embedded-mongo/
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force

FROM ${NODE_IMAGE} AS runtime
# HOST: listen on every interface inside the container (the service's default is loopback).
# EMBEDDED_MONGO_PATH: without MONGODB_URI the embedded engine keeps its data in the /data volume.
# MALLOC_MMAP_THRESHOLD_: large buffers go back to the OS when freed (docs/operators/production.md).
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=4000 \
    EMBEDDED_MONGO_PATH=/data \
    MALLOC_MMAP_THRESHOLD_=131072
WORKDIR /app
# Owned by root and read-only to the service user: the process cannot rewrite its own code.
COPY package.json package-lock.json ./
COPY --from=deps /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
# The engine package as installed: node_modules/@meetings/embedded-mongo links here, to its dist/.
COPY packages/embedded-mongo/package.json packages/embedded-mongo/
COPY --from=build /app/packages/embedded-mongo/dist ./packages/embedded-mongo/dist
RUN mkdir /data && chown node:node /data
VOLUME /data
USER node
EXPOSE 4000
# No curl in slim images: Node's fetch. Exit 0 only on a 2xx from /healthz.
HEALTHCHECK --interval=15s --timeout=5s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.PORT || 4000}/healthz`).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
CMD ["node", "dist/src/cli/service.js"]
