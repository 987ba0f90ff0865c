#!/usr/bin/env python3
"""Set-up steps of deploy/fuzz.
  setup.py routes SOURCE DEST   the route table with every rate-limit policy raised to FUZZ_RATE_LIMIT (100000), so
                                that thousands of bad requests are answered by the services instead of 429
  setup.py users DEST AUTH      registers two accounts through the gateway and logs them in (POST
                                /api/auth/login): the owner's {email, password, token, userId} to DEST, and both as a
                                Web Fuzzing Commons auth file (`owner`, `peer`, each a bearer header) to AUTH
  setup.py exceptions TOML      prints what deploy/fuzz.d/schemathesis.toml sets beside schemathesis' defaults (the
                                per-operation expectations one by one), with the comment above each (its reason)
  setup.py openapi DEST         the OpenAPI document: the gateway's /openapi.json when it serves one, else the
                                repository's gateway/Resources/openapi.json; written to DEST, its origin printed
  setup.py parts WHEN           every service answers /health/live; one that does not is recorded as crashed
                                (fuzzlib.watch_crash) and, when the run started the stack, started again"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fuzzlib  # noqa: E402

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def routes(source, dest):
    table = json.load(open(source))
    limit = int(os.environ.get("FUZZ_RATE_LIMIT", "100000"))
    for policy in table.get("rateLimits", {}).values():
        policy["limit"] = max(policy.get("limit", 0), limit)
    with open(dest, "w") as handle:
        json.dump(table, handle, indent=2)
        handle.write("\n")
    print(f"{len(table.get('routes', []))} routes, {len(table.get('rateLimits', {}))} rate-limit policies raised to {limit}")


def users(dest, auth):
    accounts = {}
    for name in ("owner", "peer"):
        account = fuzzlib.register(f"schemathesis-{name}")
        session = fuzzlib.login(account["email"], account["password"])
        accounts[name] = {"email": account["email"], "password": account["password"],
                          "token": session.get("accessToken") or session.get("token"),
                          "userId": (session.get("user") or {}).get("id", "")}
        if not accounts[name]["token"]:
            raise SystemExit(f"no access token for {account['email']}")
        print(f"{name}: {account['email']} (user {accounts[name]['userId']})")
    with open(dest, "w") as handle:
        json.dump(accounts["owner"], handle)
    document = {"schemaVersion": "1.0.0", "auth": [
        {"name": name, "fixedHeaders": [{"name": "Authorization", "value": f"Bearer {account['token']}"}]}
        for name, account in accounts.items()]}
    with open(auth, "w") as handle:
        json.dump(document, handle, indent=2)


def exceptions(toml_path):
    """What deploy/fuzz.d/schemathesis.toml sets beside schemathesis' defaults, table by table (the per-operation
    expectations one by one), each with its reason: the comment lines just above it."""
    import tomllib
    settings = tomllib.load(open(toml_path, "rb"))
    headers, comment = [], []
    for line in open(toml_path).read().splitlines():
        if line.startswith("#"):
            comment.append(line.lstrip("# ").rstrip())
        elif line.startswith("["):
            headers.append((line.strip("[] "), " ".join(comment)))
            comment = []
        elif not line.strip():
            comment = []

    def flat(table, prefix=""):
        for key, value in table.items():
            if isinstance(value, dict):
                yield from flat(value, f"{prefix}{key}.")
            else:
                yield f"{prefix}{key}={value}"

    operations = iter(settings.get("operations", []))
    print("settings beside schemathesis' defaults (deploy/fuzz.d/schemathesis.toml), each with its reason:")
    for name, reason in headers:
        if name == "operations":
            entry = next(operations)
            where = f"{entry.get('include-method', 'any')} {entry.get('include-path', entry.get('include-path-regex', '?'))}"
            what = "; ".join(flat(entry.get("checks", {}), "checks."))
        else:
            table = settings
            for part in name.split("."):
                table = table[part]
            where, what = f"[{name}]", "; ".join(item for item in flat(table) if not item.startswith("path="))
        print(f"  {where}: {what}\n    because: {reason}")


def openapi(dest):
    answer = fuzzlib.send("GET", "/openapi.json", headers={"Accept": "application/json"})
    document = answer.json() if answer.status == 200 else None
    if isinstance(document, dict) and "openapi" in document and "paths" in document:
        origin = f"{fuzzlib.GATEWAY}/openapi.json"
    else:
        origin = os.path.join(REPO, "gateway", "Resources", "openapi.json")
        if not os.path.exists(origin):
            raise SystemExit(f"no OpenAPI document: the gateway does not serve /openapi.json and {origin} does not exist")
        document = json.load(open(origin))
    with open(dest, "w") as handle:
        json.dump(document, handle, indent=2)
    operations = fuzzlib.load_operations(document)
    print(f"{origin}: OpenAPI {document.get('openapi')}, {len(operations)} operations, "
          f"{sum(o.json_body for o in operations)} with a JSON body")


if __name__ == "__main__":
    command = sys.argv[1] if len(sys.argv) > 1 else ""
    if command == "routes" and len(sys.argv) == 4:
        routes(sys.argv[2], sys.argv[3])
    elif command == "users" and len(sys.argv) == 4:
        users(sys.argv[2], sys.argv[3])
    elif command == "exceptions" and len(sys.argv) == 3:
        exceptions(sys.argv[2])
    elif command == "parts" and len(sys.argv) == 3:
        problems = fuzzlib.watch_crash(f"(none: found {sys.argv[2]})", sys.argv[2], "")
        print("\n".join(problems) if problems else "every service answers")
    elif command == "openapi" and len(sys.argv) == 3:
        openapi(sys.argv[2])
    else:
        raise SystemExit(__doc__)
