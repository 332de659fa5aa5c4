# syntax=docker/dockerfile:1
# Build stage: full dependencies, compile TypeScript.
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci
COPY tsconfig.json tsconfig.build.json nest-cli.json ./
COPY src ./src
RUN npm run build

# Production dependencies only.
FROM node:20-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev && npm cache clean --force

# Runtime: compiled code + production dependencies, as the unprivileged `node` user.
FROM node:20-bookworm-slim
ENV NODE_ENV=production PORT=3000 STORAGE_DIR=/data/storage
# glibc malloc: blocks of 128 KB and more always mmap'd, so freed ones go back to the system
# (glibc's default raises that threshold to the largest block freed, up to 32 MB, and the heap
# keeps what later frees leave behind), and 2 arenas instead of 8 per core. A 1,000,000-line
# import's worker peaked ~15 MB lower and gave back ~30 MB between imports (docs/performance.md).
ENV MALLOC_MMAP_THRESHOLD_=131072 MALLOC_ARENA_MAX=2
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
RUN mkdir -p /data/storage && chown -R node:node /data
USER node
# 3000: the API (PORT); 9464: GET /metrics when METRICS_PORT=9464 (every role)
EXPOSE 3000 9464
# V8 lets a large heap grow to 4x its live data before a full collection, so garbage piles up
# under load; growing 2x instead bounds memory without the throughput cost of a heap cap
# (docs/performance.md has the measurements).
CMD ["node", "--heap-growing-percent=100", "dist/main.js"]
