# The image runs the npm package as `npm install` lays it out from its tarball: the prebuilt standalone
# server (`erawatch serve`) and the compiled CLI (`erawatch worker`, `db-migrate`, …), nothing else.
#   docker build -t erawatch .
#   docker run -p 3000:3000 -e ERAWATCH_ADMIN_SECRET=… -v erawatch-data:/var/lib/erawatch erawatch

FROM node:22-bookworm-slim AS build
# better-sqlite3 compiles for this Node when no prebuilt binary can be fetched; that needs a toolchain.
RUN apt-get update \
  && apt-get install -y --no-install-recommends python3 make g++ \
  && rm -rf /var/lib/apt/lists/*
ENV NEXT_TELEMETRY_DISABLED=1
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
# prepack builds the app and the CLI; the tarball is exactly what the registry would serve.
RUN npm pack --pack-destination /tmp
# Installed in the build stage, so better-sqlite3 is built here for this image's Node (22), not the host's.
WORKDIR /opt/erawatch
RUN echo '{"private": true}' > package.json \
  && npm install --omit=dev --no-audit --no-fund /tmp/erawatch-*.tgz \
  && rm package.json package-lock.json

FROM node:22-bookworm-slim
ENV NODE_ENV=production \
  NEXT_TELEMETRY_DISABLED=1 \
  PATH=/opt/erawatch/node_modules/.bin:$PATH \
  ERAWATCH_DB=/var/lib/erawatch/erawatch.db
COPY --from=build /opt/erawatch /opt/erawatch
# The image's own user (uid 1000, `node`), numeric so that runAsNonRoot can verify it.
RUN mkdir -p /var/lib/erawatch && chown 1000:1000 /var/lib/erawatch
USER 1000:1000
WORKDIR /var/lib/erawatch
EXPOSE 3000
# No curl in a slim image: Node asks /healthz itself.
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
STOPSIGNAL SIGTERM
ENTRYPOINT ["erawatch"]
CMD ["serve", "--host", "0.0.0.0"]
