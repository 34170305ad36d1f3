#!/usr/bin/env bash
# make release: one binary per GOOS/GOARCH of RELEASE_TARGETS into DIST,
# named mlcube-compile-VERSION-GOOS-GOARCH and stamped with VERSION and
# COMMIT (what --version prints), then DIST/SHA256SUMS over them, in
# sha256sum's form (sha256sum --check reads it). Static (RELEASE_CGO=0)
# and with RELEASE_FLAGS (-trimpath), so every target cross-compiles
# offline from the module cache.
set -euo pipefail
: "${GO:=go}" "${VERSION:?}" "${DIST:=dist}" "${RELEASE_CGO:=0}"
: "${RELEASE_TARGETS:=linux/amd64 linux/arm64 darwin/amd64 darwin/arm64}"
: "${RELEASE_FLAGS=-trimpath}" "${COMMIT=}"
case "$VERSION" in
  */*|*" "*|"") echo "make release: VERSION=\"$VERSION\" cannot name a file" >&2; exit 2 ;;
esac
mkdir -p "$DIST"
built=()
for target in $RELEASE_TARGETS; do
  os=${target%/*} arch=${target#*/}
  bin="mlcube-compile-$VERSION-$os-$arch"
  echo "building $DIST/$bin"
  # shellcheck disable=SC2086 # RELEASE_FLAGS is a list of flags
  CGO_ENABLED="$RELEASE_CGO" GOOS="$os" GOARCH="$arch" "$GO" build $RELEASE_FLAGS \
    -ldflags "-s -w -X main.version=$VERSION -X main.commit=$COMMIT" -o "$DIST/$bin" ./cmd/mlcube-compile
  built+=("$bin")
done
(cd "$DIST" && sha256sum "${built[@]}" >SHA256SUMS)
echo "$DIST/SHA256SUMS:"
sed 's/^/  /' "$DIST/SHA256SUMS"
