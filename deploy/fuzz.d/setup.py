#!/usr/bin/env python3
"""Set-up steps of deploy/fuzz.
  setup.py routes SOURCE DEST   the route table with every rate-limit policy raised to FUZZ_RATE_LIMIT (100000), so
                                that thousands of bad requests are answered by the services instead of 429
  setup.py user DEST            registers an account through the gateway, logs it in (POST /api/auth/login) and
                                writes {email, password, token, userId} to DEST
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


def user(dest):
    account = fuzzlib.register("schemathesis")
    session = fuzzlib.login(account["email"], account["password"])
    token = session.get("accessToken") or session.get("token")
    user_id = (session.get("user") or {}).get("id", "")
    with open(dest, "w") as handle:
        json.dump({"email": account["email"], "password": account["password"], "token": token, "userId": user_id}, handle)
    print(f"{account['email']} (user {user_id})")


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
    elif command == "user" and len(sys.argv) == 3:
        user(sys.argv[2])
    elif command == "parts" and len(sys.argv) == 3:
        problems = fuzzlib.watch_crash(f"(none: found {sys.argv[2]})", sys.argv[2], "")
        print("\n".join(problems) if problems else "every service answers")
    elif command == "openapi" and len(sys.argv) == 3:
        openapi(sys.argv[2])
    else:
        raise SystemExit(__doc__)
