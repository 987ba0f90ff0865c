# PostgreSQL cluster of the local stack: init once, start, stop, create roles and schemas. Sourced.

pg() { runuser -u postgres -- "$PG_BIN/$1" "${@:2}"; }
psql_admin() { runuser -u postgres -- psql -X -q -v ON_ERROR_STOP=1 -h "$PG_SOCKET_DIR" -p "$PG_PORT" "$@"; }

pg_running() { [ -f "$PG_DATA/postmaster.pid" ] && pg pg_ctl -D "$PG_DATA" status >/dev/null 2>&1; }

# The postgres user must be able to reach the data folder; grant traverse (x) on any parent that lacks it.
pg_grant_traverse() {
  local dir="$LOCAL_DIR"
  while [ "$dir" != "/" ]; do
    if ! runuser -u postgres -- test -x "$dir" 2>/dev/null; then
      say "granting traverse permission on $dir so the postgres user can reach its data"
      chmod o+x "$dir"
    fi
    dir=$(dirname "$dir")
  done
}

pg_init() {
  step "PostgreSQL cluster in $PG_DATA"
  mkdir -p "$LOCAL_DIR"
  pg_grant_traverse
  mkdir -p "$PG_DATA" "$PG_SOCKET_DIR" "$LOG_DIR"
  chown postgres:postgres "$PG_DATA" "$PG_SOCKET_DIR" "$(dirname "$PG_DATA")"
  chmod 700 "$PG_DATA"
  if [ -f "$PG_DATA/PG_VERSION" ]; then ok "cluster already initialised"; return 0; fi
  pg initdb -D "$PG_DATA" -U postgres --auth-local=trust --auth-host=scram-sha-256 -E UTF8 --locale=C.UTF-8 >"$LOG_DIR/initdb.log" 2>&1 \
    || fail "initdb failed; see $LOG_DIR/initdb.log"
  cat >>"$PG_DATA/postgresql.conf" <<CONF
# NutritionAI local stack
listen_addresses = '127.0.0.1'
port = $PG_PORT
unix_socket_directories = '$PG_SOCKET_DIR'
max_connections = 300
shared_buffers = 256MB
fsync = on
# A client that dies mid-transaction must not hold locks for long.
idle_in_transaction_session_timeout = '60s'
tcp_keepalives_idle = 10
tcp_keepalives_interval = 5
tcp_keepalives_count = 3
CONF
  ok "cluster initialised"
}

pg_start() {
  step "PostgreSQL on 127.0.0.1:$PG_PORT"
  if pg_running; then ok "already running"; return 0; fi
  require_port_free "$PG_PORT" PostgreSQL
  touch "$LOG_DIR/postgres.log" && chown postgres "$LOG_DIR/postgres.log"
  pg pg_ctl -D "$PG_DATA" -l "$LOG_DIR/postgres.log" -w -t 30 start >/dev/null || fail "PostgreSQL did not start; see $LOG_DIR/postgres.log"
  ok "started (log: $LOG_DIR/postgres.log)"
}

pg_stop() {
  if pg_running; then
    pg pg_ctl -D "$PG_DATA" -m fast -w stop >/dev/null && say "PostgreSQL stopped"
  fi
}

# The password of a service's role, created once and kept in .local/secrets.
role_password() { # role_password ROLE
  mkdir -p "$SECRETS_DIR" && chmod 700 "$SECRETS_DIR"
  local file="$SECRETS_DIR/$1.password"
  [ -s "$file" ] || (umask 077 && openssl rand -hex 24 >"$file")
  cat "$file"
}

# The auth service's development signing key ("kid:base64url-seed" of an Ed25519 key), created once.
dev_signing_key() {
  mkdir -p "$SECRETS_DIR" && chmod 700 "$SECRETS_DIR"
  local file="$SECRETS_DIR/auth-signing.key"
  if [ ! -s "$file" ]; then
    local seed
    seed=$(openssl genpkey -algorithm ed25519 -outform DER | tail -c 32 | base64 | tr '+/' '-_' | tr -d '=\n')
    (umask 077 && echo "dev-$(date +%Y%m%d%H%M%S):$seed" >"$file")
    say "created a development signing key in $file" >&2
  fi
  cat "$file"
}

# A development key of a keyring setting ("kid:base64url" of 32 random bytes), created once as .local/secrets/NAME.key.
dev_symmetric_key() { # dev_symmetric_key NAME
  mkdir -p "$SECRETS_DIR" && chmod 700 "$SECRETS_DIR"
  local file="$SECRETS_DIR/$1.key"
  if [ ! -s "$file" ]; then
    (umask 077 && echo "dev-$(date +%Y%m%d%H%M%S):$(openssl rand 32 | base64 | tr '+/' '-_' | tr -d '=\n')" >"$file")
    say "created a development key in $file" >&2
  fi
  cat "$file"
}

# One database; per service (and the gateway) a login role that owns its schema and can use nothing else.
pg_bootstrap() {
  step "database $PG_DATABASE, one role and schema per service and the gateway"
  psql_admin -d postgres -tAc "SELECT 1 FROM pg_database WHERE datname = '$PG_DATABASE'" | grep -q 1 \
    || psql_admin -d postgres -c "CREATE DATABASE $PG_DATABASE"
  psql_admin -d "$PG_DATABASE" -c "REVOKE ALL ON DATABASE $PG_DATABASE FROM PUBLIC; REVOKE ALL ON SCHEMA public FROM PUBLIC;"
  # Extensions the services use, created as superuser in a schema of their own that every role may use (its functions
  # only): pg_trgm, the foods service's typo-tolerant search of product names. An extension exists once per database,
  # so a service running in another schema (the tests' itest_foods) finds it there too, as `extensions.`.
  psql_admin -d "$PG_DATABASE" -c "CREATE SCHEMA IF NOT EXISTS extensions; GRANT USAGE ON SCHEMA extensions TO PUBLIC;" \
    -c "CREATE EXTENSION IF NOT EXISTS pg_trgm SCHEMA extensions"
  local entry name schema role password
  for entry in $SERVICES "gateway:$GATEWAY_SCHEMA" $EXTRA_SCHEMAS; do
    IFS=: read -r name schema _ <<<"$entry"
    role="${schema}_service"
    password=$(role_password "$role")
    psql_admin -d "$PG_DATABASE" -v role="$role" -v schema="$schema" -v password="$password" <<'SQL'
SELECT format('CREATE ROLE %I LOGIN', :'role') WHERE NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = :'role') \gexec
ALTER ROLE :"role" WITH LOGIN PASSWORD :'password' NOSUPERUSER NOCREATEDB NOCREATEROLE;
GRANT CONNECT ON DATABASE :"DBNAME" TO :"role";
CREATE SCHEMA IF NOT EXISTS :"schema" AUTHORIZATION :"role";
ALTER ROLE :"role" SET search_path = :"schema";
SQL
  done
  ok "roles and schemas in place"
}

# Environment for a service process: how it reaches its own schema.
pg_env_for() { # pg_env_for SCHEMA
  local role="${1}_service"
  printf 'POSTGRES_HOST=127.0.0.1 POSTGRES_PORT=%s POSTGRES_DATABASE=%s POSTGRES_USER=%s POSTGRES_PASSWORD=%s POSTGRES_SCHEMA=%s' \
    "$PG_PORT" "$PG_DATABASE" "$role" "$(role_password "$role")" "$1"
}
