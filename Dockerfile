# klondiked and the klondike command-line tool, in a small Debian image.
#
#   docker build -t klondiked --build-arg VERSION=$(git describe --always --dirty) .
#   docker run --rm -p 8080:8080 klondiked
#
# Stage 1 builds static binaries; stage 2 is debian:bookworm-slim with curl
# (for the health check) and a non-root user. No BuildKit-only syntax, so the
# classic builder (docker-compose 1.29, podman) builds it too.

ARG GO_VERSION=1.26

FROM golang:${GO_VERSION}-bookworm AS build
WORKDIR /src
ENV CGO_ENABLED=0 GOFLAGS=-buildvcs=false GOTOOLCHAIN=local
# Modules first: this layer is reused until go.mod or go.sum change.
COPY go.mod go.sum ./
RUN go mod download && go mod verify
COPY . .
ARG VERSION=dev
RUN go build -trimpath -ldflags "-s -w -X main.version=${VERSION}" -o /out/klondiked ./cmd/klondiked \
 && go build -trimpath -ldflags "-s -w" -o /out/klondike ./cmd/klondike \
 && /out/klondiked --help >/dev/null 2>&1

FROM debian:bookworm-slim
ARG VERSION=dev
LABEL org.opencontainers.image.title="klondiked" \
      org.opencontainers.image.description="Competitive Klondike solitaire server" \
      org.opencontainers.image.version="${VERSION}"
RUN apt-get update \
 && apt-get install -y --no-install-recommends ca-certificates curl \
 && rm -rf /var/lib/apt/lists/* \
 && groupadd --system --gid 10001 klondike \
 && useradd --system --uid 10001 --gid klondike --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin klondike
COPY --from=build /out/klondiked /out/klondike /usr/local/bin/
USER 10001:10001
ENV KLONDIKE_ADDR=:8080 \
    KLONDIKE_LOG_FORMAT=json
EXPOSE 8080
# /readyz answers 503 while draining or when the store is unreachable.
# It assumes the default port; with another KLONDIKE_ADDR, override it.
HEALTHCHECK --interval=10s --timeout=3s --start-period=5s --retries=3 \
    CMD curl -fsS -o /dev/null http://127.0.0.1:8080/readyz || exit 1
# klondiked drains on SIGTERM (--shutdown-grace, 10s by default): give
# `docker stop` more than that (compose sets stop_grace_period).
STOPSIGNAL SIGTERM
ENTRYPOINT ["klondiked"]
