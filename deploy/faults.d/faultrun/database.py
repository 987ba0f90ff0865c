"""Evidence straight from PostgreSQL, as its superuser (the services never do this)."""
import subprocess

from .config import PG_DATABASE, PG_SOCKET_DIR, PORTS


def psql(sql):
    """Rows of a query as the PostgreSQL superuser (evidence only; the services never do this)."""
    proc = subprocess.run(
        ["runuser", "-u", "postgres", "--", "psql", "-X", "-q", "-A", "-t", "-F", "\t", "-v", "ON_ERROR_STOP=1",
         "-h", PG_SOCKET_DIR, "-p", str(PORTS["postgres"]), "-d", PG_DATABASE, "-c", sql],
        capture_output=True, text=True, timeout=120)
    if proc.returncode != 0:
        raise RuntimeError(f"psql failed: {proc.stderr.strip()}")
    return [line.split("\t") for line in proc.stdout.splitlines() if line]


def uuid_array(ids):
    return "ARRAY[" + ",".join(f"'{i}'" for i in ids) + "]::text[]"
