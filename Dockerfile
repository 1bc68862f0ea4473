# dashplane container image: docs/operations.md ("Container image") says how to build and run it.
#   docker build -t dashplane:0.1.0 .
#   docker run -p 8080:8080 -v dashplane-data:/var/lib/dashplane -e DASHPLANE_ENCRYPTION_KEY=... dashplane:0.1.0
ARG NODE_IMAGE=node:22-bookworm-slim

# --- build: every dependency, then the server (tsc) and the web UI (Vite) ---
FROM ${NODE_IMAGE} AS build
WORKDIR /src
COPY package.json package-lock.json ./
COPY ui/package.json ui/
RUN npm ci --no-audit --no-fund --ignore-scripts
COPY . .
RUN npm run build

# --- runtime: production dependencies only, the built files, a non-root user ---
FROM ${NODE_IMAGE}
# git (and ssh, and the CA certificates for HTTPS) for provisioning from Git repositories (docs/provisioning.md)
RUN apt-get update && apt-get install -y --no-install-recommends git openssh-client ca-certificates && rm -rf /var/lib/apt/lists/*
ENV NODE_ENV=production \
    DASHPLANE_LISTEN=:8080 \
    DASHPLANE_DATABASE_LEVEL_PATH=/var/lib/dashplane
WORKDIR /opt/dashplane
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --workspaces=false --no-audit --no-fund --ignore-scripts && npm cache clean --force
COPY schemas ./schemas
COPY --from=build /src/dist/src ./dist/src
COPY --from=build /src/dist/cli ./dist/cli
COPY --from=build /src/ui/dist ./ui/dist
# the data directory is the server's alone (a new named volume takes this mode)
RUN mkdir -p /var/lib/dashplane && chown node:node /var/lib/dashplane && chmod 700 /var/lib/dashplane
USER node
VOLUME ["/var/lib/dashplane"]
EXPOSE 8080
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:8080/api/v1/health').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["node", "dist/src/bin/dashplane.js"]
