# a2a-gateway container image, tagged with package.json's version:
#   docker build -t a2a-gateway:$(node -p "require('./package.json').version") .
#   docker run -p 8080:8080 -v $PWD/my-gateway.yaml:/etc/a2a-gateway/gateway.yaml:ro a2a-gateway:0.2.0
# The build runs the same npm scripts CI runs (npm ci, npm run build); test/docker checks that
# every file and script named here exists and that the production install starts the CLI.
#
# The gateway image (the last stage, the default target) holds the production dependencies only
# and no demo: the demo fleet's @a2a-js/sdk and express are dev dependencies, and dist/demo is
# removed. The demo fleet has an image of its own, target `demo` (docker-compose.yml
# `demo-fleet`), with the full install `npm start` uses.
ARG NODE_VERSION=26
# The gateway's version for the image label: package.json's, kept in step by test/deploy/version.test.ts
# (the running gateway reads package.json itself: `a2a-gateway --version`, a2a_gateway_build_info).
ARG VERSION=0.2.0

FROM node:${NODE_VERSION}-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY scripts ./scripts
RUN npm run build

FROM node:${NODE_VERSION}-bookworm-slim AS demo
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build /app/package.json ./package.json
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
USER node

FROM build AS production
RUN npm prune --omit=dev && rm -rf dist/demo

FROM node:${NODE_VERSION}-bookworm-slim
ARG VERSION
LABEL org.opencontainers.image.title="a2a-gateway" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.licenses="Apache-2.0"
ENV NODE_ENV=production
WORKDIR /app
COPY --from=production /app/package.json ./package.json
COPY --from=production /app/node_modules ./node_modules
COPY --from=production /app/dist ./dist
COPY config ./config
COPY dashboards ./dashboards
# Mount your own config here; the bundled one fronts the demo fleet.
RUN mkdir -p /etc/a2a-gateway && cp config/gateway.yaml /etc/a2a-gateway/gateway.yaml
USER node
EXPOSE 8080
# The gRPC listener, when the config sets listen.grpc (docs/configuration.md "gRPC").
EXPOSE 50051
# The admin listener (/metrics, /exchanges, …): only when your config binds admin.listen to
# 0.0.0.0 — then set admin.token too. The bundled config keeps it on the container's loopback.
EXPOSE 9464
HEALTHCHECK --interval=10s --timeout=3s --start-period=10s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:8080/healthz').then(r => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["node", "dist/cli.js"]
CMD ["--config", "/etc/a2a-gateway/gateway.yaml", "--host", "0.0.0.0", "--port", "8080"]
