# The service as a container image (README "Running several instances"; deploy/compose.yaml runs
# two of them). Stage 1 installs the production dependencies as `npm ci` does for a user
# (better-sqlite3 13 ships prebuilt binaries: no compiler) and generates the Prisma clients;
# stage 2 runs them as the unprivileged user `node`. Build: docker build -t gateway .
FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json schema.graphql tsconfig.json ./
COPY scripts ./scripts
COPY prisma ./prisma
COPY src ./src
RUN npm ci --omit=dev --strict-allow-scripts --no-audit --no-fund && npm cache clean --force

FROM node:24-bookworm-slim
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=4000 \
    DATABASE_URL=file:/data/gateway.db \
    UPLOAD_DIR=/data/uploads
WORKDIR /app
COPY --from=build /app ./
RUN mkdir -p /data/uploads && chown -R node:node /data
USER node
VOLUME /data
EXPOSE 4000
# /readyz: the database answers and takes writes, and the upload folder or bucket can be reached.
# (dockerfilelint 1.8 flags --start-period, a Docker 17.05 option it predates; it reports nothing else.)
HEALTHCHECK --interval=15s --timeout=5s --start-period=60s --retries=3 \
    CMD ["node", "-e", "fetch('http://127.0.0.1:' + process.env.PORT + '/readyz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# node itself is PID 1 (exec form, no npm or shell in between): SIGTERM reaches the service,
# which finishes the requests in flight and exits (SHUTDOWN_TIMEOUT). The same command as `npm start`
# (the V8 options: docs/operations.md "Starting and stopping").
CMD ["node", "--min-semi-space-size=16", "--initial-old-space-size=256", "--no-memory-reducer", "--import", "tsx", "src/main.ts"]
