#!/usr/bin/env bash
# Makes sure the base image debian:trixie-slim exists locally.
# Where a registry is reachable it is pulled; where none is (as on our
# machines and CI), the same tag is built from Debian's archive with
# mmdebstrap and `docker import`, so every other image builds either way.
set -euo pipefail

readonly BASE_TAG=debian:trixie-slim

if docker image inspect "$BASE_TAG" >/dev/null 2>&1; then
	exit 0
fi

if timeout 60 docker pull -q "$BASE_TAG" >/dev/null 2>&1; then
	echo "base: pulled $BASE_TAG"
	exit 0
fi

if ! command -v mmdebstrap >/dev/null 2>&1; then
	echo "error: no registry reachable for $BASE_TAG and mmdebstrap is not installed;" \
		"install mmdebstrap (Debian package) or make a registry reachable" >&2
	exit 1
fi

echo "base: no registry reachable, building $BASE_TAG from Debian's archive (about 20 s)"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# minbase plus what apt needs to verify the archive; docs and locales are
# dropped as in the official slim image.
mmdebstrap --quiet --variant=minbase --include=ca-certificates \
	--dpkgopt='path-exclude=/usr/share/man/*' \
	--dpkgopt='path-exclude=/usr/share/doc/*' \
	--dpkgopt='path-include=/usr/share/doc/*/copyright' \
	--dpkgopt='path-exclude=/usr/share/locale/*' \
	trixie "$tmp/rootfs.tar"
docker import --change 'CMD ["bash"]' "$tmp/rootfs.tar" "$BASE_TAG" >/dev/null
echo "base: imported $BASE_TAG"
