# swift-openapi-generator, built once per machine in a package of its own outside any clone (a few minutes), for
# deploy/generate-client and the test command's check that the committed client is what the document generates.
# Sourced after common.sh.

OPENAPI_GENERATOR_VERSION="1.14.3"
OPENAPI_GENERATOR_DIR="${NUTRITION_OPENAPI_GENERATOR_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/nutritionai/openapi-generator-$OPENAPI_GENERATOR_VERSION}"
OPENAPI_GENERATOR="$OPENAPI_GENERATOR_DIR/.build/release/swift-openapi-generator"
CLIENT_DIR="$REPO_ROOT/Clients/NutritionAIClient"

# Builds the generator when it is not there yet.
openapi_generator_build() {
  [ -x "$OPENAPI_GENERATOR" ] && return 0
  mkdir -p "$OPENAPI_GENERATOR_DIR"
  cat >"$OPENAPI_GENERATOR_DIR/Package.swift" <<SWIFT
// swift-tools-version:6.0
import PackageDescription
let package = Package(
    name: "openapi-generator-tool",
    dependencies: [.package(url: "https://github.com/apple/swift-openapi-generator", exact: "$OPENAPI_GENERATOR_VERSION")],
    targets: []
)
SWIFT
  (cd "$OPENAPI_GENERATOR_DIR" && swift build -c release --product swift-openapi-generator >"$OPENAPI_GENERATOR_DIR/build.log" 2>&1) \
    || { tail -n 20 "$OPENAPI_GENERATOR_DIR/build.log" >&2; fail "the generator did not build; see $OPENAPI_GENERATOR_DIR/build.log"; }
}

# Generates the client of gateway/Resources/openapi.json into OUTPUT (its Swift files only).
openapi_generate() { # openapi_generate OUTPUT
  mkdir -p "$1"
  "$OPENAPI_GENERATOR" generate --config "$CLIENT_DIR/openapi-generator-config.yaml" --output-directory "$1" \
    "$REPO_ROOT/gateway/Resources/openapi.json" >"$OPENAPI_GENERATOR_DIR/generate.log" 2>&1 \
    || { cat "$OPENAPI_GENERATOR_DIR/generate.log" >&2; fail "generation failed"; }
}

# The test command's check: the committed client is exactly what the generator makes of the document. Skipped, saying
# so, on a machine where the generator was never built (`deploy/generate-client` builds it); the contract test still
# holds the document's stamp against the client's.
generated_client_check() {
  step "the committed client (Clients/NutritionAIClient/Generated) is what the document generates"
  if [ ! -x "$OPENAPI_GENERATOR" ]; then
    say "skipped: swift-openapi-generator $OPENAPI_GENERATOR_VERSION is not built on this machine (deploy/generate-client builds it once)"
    return 0
  fi
  local fresh
  fresh=$(mktemp -d)
  openapi_generate "$fresh"
  if ! diff -r -q -x '*.sha256' "$fresh" "$CLIENT_DIR/Generated"; then
    rm -rf "$fresh"
    fail "the committed client differs from what gateway/Resources/openapi.json generates (above): run deploy/generate-client"
  fi
  rm -rf "$fresh"
  ok "$(ls "$CLIENT_DIR"/Generated/*.swift | wc -l) files, as generated"
}
