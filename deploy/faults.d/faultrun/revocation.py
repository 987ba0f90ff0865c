"""How long a session's end takes to reach the gateway: for each way a session ends (logout, logout-all, a password
change, account deletion), a fresh account's access token is cached by the gateway, the session is ended, and the
same token is sent again every 50 ms until the gateway itself refuses it (401 `invalid_token`; the auth service would
say `session_ended`). The limit, 2 s (docs/OPERATIONS.md: auth answers the gateway's held revocation poll as soon as
a session ends), is a check of the run; the integration tests (Tests/IntegrationTests/RevocationTests.swift) check
only that it happens."""
import time
import uuid

from .config import now
from .http import call
from .output import bad, ok, step

LIMIT = 2.0          # seconds from the end's answer to the gateway's own refusal
GIVE_UP = 30.0       # a refusal not seen by then is recorded as never


def refused_after(token, since):
    """Seconds from `since` (now()) until GET /api/auth/me with `token` is the gateway's invalid_token; None if never."""
    while now() - since < GIVE_UP:
        a = call("GET", "/api/auth/me", token=token, timeout=10)
        if a.status == 401 and a.code == "invalid_token":
            return round(now() - since, 3)
        time.sleep(0.05)
    return None


def account(run_id, what):
    """A fresh account: (email, password, access token) of its first session."""
    email = f"faults-revoke-{what}-{run_id}-{uuid.uuid4().hex[:6]}@example.com"
    password = f"revocation-{uuid.uuid4().hex[:12]}"
    a = call("POST", "/api/auth/register", {"email": email, "password": password, "displayName": "Revocation"})
    if a.status != 201:
        raise RuntimeError(f"register for {what}: {a.describe()}")
    return email, password, a.body["accessToken"]


def login(email, password):
    a = call("POST", "/api/auth/login", {"email": email, "password": password})
    if a.status != 200:
        raise RuntimeError(f"login {email}: {a.describe()}")
    return a.body["accessToken"]


def measure(run_id):
    """One entry per way a session ends: {"ending", "seconds" (None: never refused), "passed", "note"}."""
    step(f"revocation: each way a session ends reaches the gateway within {LIMIT:g} s")
    entries = []

    def record(ending, token, since, note=""):
        seconds = refused_after(token, since)
        passed = seconds is not None and seconds <= LIMIT
        entries.append({"ending": ending, "seconds": seconds, "passed": passed, "note": note})
        text = f"{ending}: the gateway refused the ended session's token {seconds} s after the answer" if seconds is not None \
            else f"{ending}: the gateway still accepted the ended session's token {GIVE_UP:g} s after the answer"
        (ok if passed else bad)(text)

    def cached(token):
        # Twice: the gateway has verified and cached the token before the session ends.
        for _ in range(2):
            a = call("GET", "/api/auth/me", token=token)
            if a.status != 200:
                raise RuntimeError(f"GET /api/auth/me before the end: {a.describe()}")

    cleanup = []
    try:
        email, password, token = account(run_id, "logout")
        cleanup.append((email, password))
        cached(token)
        a = call("POST", "/api/auth/logout", token=token)
        record("logout", token, now(), a.describe())

        email, password, first = account(run_id, "logout-all")
        cleanup.append((email, password))
        second = login(email, password)
        cached(first)
        a = call("POST", "/api/auth/logout-all", token=second)
        record("logout-all", first, now(), a.describe())

        email, password, other = account(run_id, "password")
        kept = login(email, password)
        cached(other)
        new_password = password + "-changed"
        a = call("PUT", "/api/auth/password", {"currentPassword": password, "newPassword": new_password}, token=kept)
        cleanup.append((email, new_password if a.ok else password))
        record("password change", other, now(), a.describe())

        email, password, token = account(run_id, "deletion")
        cached(token)
        a = call("DELETE", "/api/users/me", {"password": password}, token=token)
        if not a.ok:
            cleanup.append((email, password))
        record("account deletion", token, now(), a.describe())
    except RuntimeError as error:
        entries.append({"ending": "setup", "seconds": None, "passed": False, "note": str(error)})
        bad(f"revocation could not be measured: {error}")
    finally:
        for email, password in cleanup:
            try:
                call("DELETE", "/api/users/me", {"password": password}, login(email, password))
            except RuntimeError:
                pass
    return entries
