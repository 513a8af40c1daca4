# Multi-stage build: install and build as root, run as the unprivileged `node` user.
# Data (SQLite, generated secrets) lives in /data; mount a volume there.

FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json prisma.config.ts ./
COPY prisma ./prisma
COPY scripts ./scripts
RUN npm install --no-audit --no-fund
COPY . .
# Builds the console once, here, so the container starts in seconds.
RUN node -e 'import("./scripts/ensure-build.mjs").then((build) => build.ensureBuild())' \
 && npm prune --omit=dev --no-audit --no-fund

FROM node:20-bookworm-slim
ENV NODE_ENV=production NEXT_TELEMETRY_DISABLED=1 HOST=0.0.0.0 PORT=3000 DATA_DIR=/data
WORKDIR /app
COPY --from=build --chown=node:node /app /app
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME /data
EXPOSE 3000
HEALTHCHECK --interval=15s --timeout=3s CMD node -e "fetch('http://127.0.0.1:' + process.env.PORT + '/api/health').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"
# The launcher itself, not npm: `docker stop`'s SIGTERM then reaches the process that drains
# open requests and stops the workers (npm as PID 1 would exit at once, cutting them off).
CMD ["node", "scripts/start.mjs"]
