#!/usr/bin/env python3
"""Targeted bad-input cases through the gateway, standard library only.
  targeted.py OPENAPI_JSON RESULTS_JSON

For every operation of the OpenAPI document with a JSON body: an oversized body (over its route's `maxBodyBytes` in
deploy/gateway-routes.json, else the gateway's 1 MiB; sent with Content-Length and chunked), malformed, truncated and empty JSON, the
wrong content types (text/plain, a form, none), invalid UTF-8, deeply nested JSON (as the body and as a field),
huge, tiny and odd numbers in every numeric field (1e308, 1e400, 1e-300, -1, 2^63, -2^63-1, a bare NaN, "NaN",
"Infinity") and SQL and HTML (`'; DROP TABLE ...--`, `' OR 1=1--`, `<script>alert(1)</script>`) in every string
field of a valid body. For every operation with path parameters: ids that are not UUIDs, unknown UUIDs, injection
text, very long and invalid-UTF-8 segments, impossible and huge dates. For every query parameter: empty, negative,
huge, textual, injection, invalid-UTF-8 and very long values, and the parameter twice.

Checks on every answer: an HTTP answer came (no reset, no timeout); no 5xx, and after a 5xx or no answer no
service has stopped (fuzzlib.watch_crash); every non-2xx answer is the one error shape
{"error": {"code", "message", "details", "requestId"}} as application/json; the status is one the document
lists for the operation; 413 for oversized bodies, 415 for text/plain and forms, 400 for malformed, truncated,
empty (when the body is required), invalid-UTF-8 and deeply nested bodies. When a body with SQL or HTML in a
string field is accepted (2xx), the stored resource is read back and must hold the string verbatim (stored as
data, not executed, escaped or cut); an accepted password must log in. A meal titled with HTML is shared and its
public page must show it escaped.

A user's own vision key is checked against a stand-in for an OpenAI-compatible provider that this script serves on
loopback (`GET /v1/models`: 200 for the run's `sk-fuzz-` keys, OpenAI's 401 otherwise), which deploy/fuzz lets users
name (MEALS_VISION_USER_ALLOWED_HOSTS=127.0.0.1): the provider a key names by default cannot be reached from here.

Results (one entry per request, with a curl line that repeats it) go to RESULTS_JSON; report.py prints them."""
import base64
import datetime
import http.server
import json
import os
import random
import sys
import threading
import time
import uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fuzzlib  # noqa: E402
from fuzzlib import call, send  # noqa: E402

GATEWAY_LIMIT = 1_048_576
ROUTES_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "gateway-routes.json")
SQL = ["'; DROP TABLE meals;--", "' OR 1=1--"]
HTML = ["<script>alert(1)</script>"]
INJECTIONS = SQL + HTML
RAW_NUMBERS = ["1e308", "1e400", "1e-300", "-1", "9223372036854775808", "-9223372036854775809", "NaN", '"NaN"', '"Infinity"']
SENTINEL = "__fuzz_raw_value__"

results = []


def load_routes():
    with open(ROUTES_FILE) as routes_file:
        return json.load(routes_file)["routes"]


ROUTES = load_routes()


def route_limit(path):
    """The body limit of the gateway route `path` falls under (the longest matching prefix), else the gateway's."""
    matching = [r for r in ROUTES if path == r["prefix"] or path.startswith(r["prefix"].rstrip("/") + "/")]
    longest = max(matching, key=lambda r: len(r["prefix"]), default={})
    return longest.get("maxBodyBytes", GATEWAY_LIMIT)


def now_iso(minutes_ago=60):
    moment = datetime.datetime.now(datetime.timezone.utc) - datetime.timedelta(minutes=minutes_ago)
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def yesterday():
    return (datetime.datetime.now(datetime.timezone.utc) - datetime.timedelta(days=1)).strftime("%Y-%m-%d")


# --- the curl line that repeats a case --------------------------------------------------------------------------

def shell_quote(text):
    return "'" + text.replace("'", "'\\''") + "'"


def curl_line(method, path, headers, body, recipe=None, chunked=False):
    parts = ["curl -sS -i", "-X", method, shell_quote(fuzzlib.GATEWAY + path)]
    for name, value in headers.items():
        if value is None:
            continue
        if name.lower() == "authorization":
            value = "Bearer $TOKEN"
            parts += ["-H", f'"Authorization: {value}"']
            continue
        parts += ["-H", shell_quote(f"{name}: {value}")]
    if body is None:
        return " ".join(parts)
    if chunked:
        parts += ["-H", "'Transfer-Encoding: chunked'"]
    if not any(k.lower() == "content-type" for k, v in headers.items() if v is not None):
        parts += ["-H", "'Content-Type:'"]  # curl would add a form content type otherwise
    parts += ["--data-binary", "@-"]
    if recipe is None and len(body) <= 1500:
        try:
            text = body.decode("ascii")
            if text.isprintable():
                return f"printf '%s' {shell_quote(text)} | " + " ".join(parts)
        except UnicodeDecodeError:
            pass
        recipe = repr(body)
    if recipe is None:
        recipe = f"{body[:60]!r} + b'...'  # {len(body)} bytes"
    return f"python3 -c {shell_quote('import sys; sys.stdout.buffer.write(' + recipe + ')')} | " + " ".join(parts)


# --- recording --------------------------------------------------------------------------------------------------

def record(operation, label, case, answer, expected=None, problems=None, repro="", ok_2xx=True):
    """Checks `answer` and keeps the case. `expected`: a set of statuses that must be seen (None: any status
    that is not a server error)."""
    problems = list(problems or [])
    status = answer.status
    if status == 0 or status in (502, 503, 504):
        problems += fuzzlib.watch_crash(label, case, repro)
    if status == 0:
        problems.append(f"no HTTP answer ({answer.note})")
    else:
        if status >= 500:
            problems.append(f"server error {status}: {answer.body[:200]!r}")
        if expected is not None and status not in expected and not (ok_2xx and 200 <= status < 300 and "2xx" in expected):
            problems.append(f"expected {'/'.join(sorted(str(s) for s in expected))}, got {status}")
        if not 200 <= status < 300 and status != 304:
            shape = fuzzlib.error_shape_problem(answer)
            if shape:
                problems.append(f"wrong error shape: {shape}")
        if operation is not None and not operation.documents(status):
            problems.append(f"status {status} not documented for {operation.label}")
        if operation is None:
            problems.append("operation not in the OpenAPI document")
    results.append({
        "operation": label, "case": case, "status": status, "problems": problems, "repro": repro,
        "code": ((answer.json() or {}).get("error") or {}).get("code") if isinstance(answer.json(), dict) else None,
    })
    return answer


def run(operation, label, case, method, path, body=None, headers=None, expected=None, recipe=None, chunked=False,
        token=None, ok_2xx=True, problems_after=None):
    all_headers = {"Accept": "application/json"}
    if token:
        all_headers["Authorization"] = f"Bearer {token}"
    all_headers.update(headers or {})
    answer = send(method, path, body, all_headers, chunked=chunked)
    repro = curl_line(method, path, all_headers, body, recipe, chunked)
    extra = problems_after(answer) if problems_after else []
    return record(operation, label, case, answer, expected, extra, repro, ok_2xx)


# --- JSON walking ---------------------------------------------------------------------------------------------

def leaves(value, path=()):
    if isinstance(value, dict):
        for key, item in value.items():
            yield from leaves(item, path + (key,))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from leaves(item, path + (index,))
    else:
        yield path, value


def with_value(document, path, value):
    copy = json.loads(json.dumps(document))
    target = copy
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    return copy


def path_name(path):
    text = ""
    for key in path:
        text += f"[{key}]" if isinstance(key, int) else (f".{key}" if text else key)
    return text


def strings_in(value):
    if isinstance(value, dict):
        for item in value.values():
            yield from strings_in(item)
    elif isinstance(value, list):
        for item in value:
            yield from strings_in(item)
    elif isinstance(value, str):
        yield value


# --- the world the cases need -----------------------------------------------------------------------------------

class World:
    def __init__(self):
        self.main = fuzzlib.register("targeted", display_name="Fuzz Main")
        self.token = self.main["token"]
        self.login_user = fuzzlib.register("login")
        self.refresh_user = fuzzlib.register("refresh")
        self.password_user = fuzzlib.register("password")
        self.password_current = self.password_user["password"]
        foods = call("GET", "/api/foods/search?q=rice&limit=1", token=self.token).json() or {}
        found = foods.get("foods") or foods.get("results") or foods.get("items") or []
        self.food_id = found[0]["id"] if found else "20044"
        self.meal_id = self.new_meal()
        # Products: one of the main user's (edited), one of another user's (reported: authors cannot report their own).
        self.product_id = self.new_product(self.token)
        self.other = fuzzlib.register("products")
        self.reported_id = self.new_product(self.other["token"])
        answer = call("POST", "/api/custom-meals", self.custom_meal_body(), token=self.token)
        self.custom_id = (answer.json() or {}).get("id", str(uuid.uuid4()))
        self.share_token = self.share(self.meal_id) or "A" * 43
        sessions = call("GET", "/api/auth/sessions", token=self.token).json() or {}
        listed = sessions.get("sessions") if isinstance(sessions, dict) else sessions
        self.session_id = (listed or [{}])[0].get("id", str(uuid.uuid4())) if isinstance(listed, list) else str(uuid.uuid4())

    def item_bodies(self):
        return [
            {"name": "Chicken salad", "grams": 250, "calories": 350, "protein": 30, "carbs": 10, "fat": 20, "fiber": 4,
             "sugars": 3, "saturatedFat": 4, "sodium": 500},
            {"foodId": self.food_id, "grams": 150},
        ]

    def meal_body(self, consumed=True):
        return {"title": "Fuzz lunch", "mealType": "lunch", "captureKind": "full_meal", "eatenAt": now_iso(),
                "notes": "fuzz notes", "consumed": consumed, "items": self.item_bodies()}

    def custom_meal_body(self):
        return {"name": "Fuzz bowl", "mealType": "lunch", "items": self.item_bodies()}

    def new_meal(self, title=None):
        body = self.meal_body()
        if title is not None:
            body["title"] = title
        answer = call("POST", "/api/meals", body, token=self.token)
        if answer.status != 201:
            raise SystemExit(f"could not create a meal: {answer.status} {answer.body[:300]!r}")
        return answer.json()["id"]

    @staticmethod
    def fresh_barcode():
        """A new EAN-13 in GS1's in-store range (prefix 2, never a retail product), its check digit computed."""
        digits = "2" + "".join(random.choice("0123456789") for _ in range(11))
        total = sum(int(d) * (3 if i % 2 else 1) for i, d in enumerate(digits))
        return digits + str((10 - total % 10) % 10)

    def product_body(self, barcode=None):
        return {"barcode": barcode or self.fresh_barcode(), "name": "Fuzz yoghurt", "brand": "Fuzz Dairy",
                "servingSize": {"amount": 150, "unit": "g"},
                "per100g": {"calories": 60, "protein": 10, "carbs": 3.6, "fat": 0.4, "sugars": 3.6, "salt": 0.1},
                "allergens": ["milk"], "vegetarian": True}

    def new_product(self, token):
        body = self.product_body()
        answer = call("POST", "/api/foods/products", body, token=token)
        if answer.status != 201:
            raise SystemExit(f"could not add a product: {answer.status} {answer.body[:300]!r}")
        product = answer.json()
        self.product_barcodes = getattr(self, "product_barcodes", {})
        self.product_barcodes[product["id"]] = body["barcode"]
        return product["id"]

    def share(self, meal_id):
        for _ in range(30):
            answer = call("POST", f"/api/share/meal/{meal_id}", {"expiresInDays": 7, "showDisplayName": True}, token=self.token)
            if answer.status == 201:
                return answer.json().get("token")
            if answer.status == 409:
                time.sleep(1)
                continue
            break
        return None


# --- the stand-in vision provider ---------------------------------------------------------------------------------

class StandInProvider(http.server.BaseHTTPRequestHandler):
    """`GET /v1/models` as OpenAI answers it: the model list to a key of this run, 401 with OpenAI's error JSON to
    any other key; everything else 404."""

    def do_GET(self):  # noqa: N802  the name http.server calls
        if self.path.rstrip("/") != "/v1/models":
            return self.answer(404, {"error": {"message": "Not found", "type": "invalid_request_error"}})
        if (self.headers.get("Authorization") or "").startswith("Bearer sk-fuzz-"):
            return self.answer(200, {"object": "list", "data": [{"id": "gpt-4o-mini", "object": "model", "owned_by": "stand-in"}]})
        self.answer(401, {"error": {"message": "Incorrect API key provided.", "type": "invalid_request_error", "code": "invalid_api_key"}})

    def answer(self, status, document):
        body = json.dumps(document).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):  # quiet: the run's own report says what happened
        pass


def start_stand_in_provider():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), StandInProvider)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return f"http://127.0.0.1:{server.server_address[1]}/v1"


PROVIDER_URL = None  # set by main()


# --- valid bodies per operation ---------------------------------------------------------------------------------
# Each entry: body(world) a fresh valid body; path(world) the concrete path; token(world, body); readback(world,
# answer, body) -> JSON documents in which an accepted string must appear, or a list of problems (str) directly.

def readback_get(path_of):
    def readback(world, answer, body):
        answer_back = call("GET", path_of(world, answer), token=world.token)
        return [answer_back.json()] if answer_back.status == 200 else [f"read-back GET answered {answer_back.status}"]
    return readback


def register_body(world):
    return {"email": f"fuzz-reg-{uuid.uuid4().hex[:12]}@example.com", "password": fuzzlib.PASSWORD, "displayName": "Fuzz Reg"}


def register_readback(world, answer, body):
    token = (answer.json() or {}).get("accessToken") or (answer.json() or {}).get("token")
    me = call("GET", "/api/auth/me", token=token)
    documents = [me.json()] if me.status == 200 else [f"read-back GET /api/auth/me answered {me.status}"]
    again = call("POST", "/api/auth/login", {"email": body["email"], "password": body["password"]})
    if again.status != 200:
        documents.append(f"the accepted password does not log in (login answered {again.status})")
    else:
        documents.append({"password": body["password"]})  # the password that was accepted is the one that works
    return documents


def password_body(world):
    return {"currentPassword": world.password_current, "newPassword": f"fuzz-new-{uuid.uuid4().hex[:16]}"}


def password_after(world, answer, body):
    """Any accepted change (whatever the case) sets the password the account now has."""
    if isinstance(body, dict) and isinstance(body.get("newPassword"), str):
        world.password_current = body["newPassword"]


def password_readback(world, answer, body):
    again = call("POST", "/api/auth/login", {"email": world.password_user["email"], "password": body["newPassword"]})
    if again.status != 200:
        return [f"the accepted new password does not log in (login answered {again.status})"]
    return [{"newPassword": body["newPassword"]}]


def delete_me_token(world, body):
    account = fuzzlib.register("delete")
    if body.get("password") == "__account__":
        body["password"] = account["password"]
    return account["token"]


def refresh_body(world):
    session = fuzzlib.login(world.refresh_user["email"], world.refresh_user["password"])
    return {"refreshToken": session["refreshToken"]}


def profile_body(world):
    return {"displayName": "Fuzz Profile", "dietPreference": "keto", "weightUnit": "kg", "timeZone": "Europe/Berlin",
            "birthDate": "1990-04-12", "sex": "female", "activityLevel": "moderate", "dailyCalorieGoal": 2000,
            "proteinGoalGrams": 120, "carbsGoalGrams": 50, "fatGoalGrams": 120, "calorieBalanceGoal": -300,
            "targetWeight": 70, "heightCm": 170}


VALID = {
    "POST /api/auth/register": dict(body=register_body, token=lambda w, b: None, readback=register_readback),
    "POST /api/auth/login": dict(body=lambda w: {"email": w.login_user["email"], "password": w.login_user["password"]},
                                 token=lambda w, b: None),
    "POST /api/auth/refresh": dict(body=refresh_body, token=lambda w, b: None),
    "PUT /api/auth/password": dict(body=password_body, token=lambda w, b: w.password_user["token"], readback=password_readback,
                                   after=password_after),
    "POST /api/auth/password-reset": dict(body=lambda w: {"email": w.main["email"]}, token=lambda w, b: None),
    # No reset token can be had without reading the mail, so the well-formed body is refused as an unknown token (422
    # `invalid_reset_token`: a well-formed value that is wrong, as every other).
    "POST /api/auth/password-reset/confirm": dict(
        body=lambda w: {"token": base64.urlsafe_b64encode(os.urandom(32)).rstrip(b"=").decode(), "newPassword": "fuzz-reset-password-1"},
        token=lambda w, b: None, baseline={422}),
    "PUT /api/users/profile": dict(body=profile_body, readback=readback_get(lambda w, a: "/api/users/profile")),
    "DELETE /api/users/me": dict(body=lambda w: {"password": "__account__"}, token=delete_me_token),
    # `hint` only helps the vision model and is not stored, so it has no read-back.
    "POST /api/analyze": dict(
        body=lambda w: {"text": "2 scrambled eggs and a slice of toast", "hint": "breakfast at home", "mealType": "breakfast",
                        "captureKind": "full_meal", "eatenAt": now_iso()},
        readback=readback_get(lambda w, a: f"/api/meals/{a.json()['id']}"), not_stored={"hint"}),
    "POST /api/meals": dict(body=lambda w: w.meal_body(), readback=readback_get(lambda w, a: f"/api/meals/{a.json()['id']}")),
    "PUT /api/meals/{id}": dict(
        body=lambda w: {"title": "Fuzz edited", "mealType": "dinner", "eatenAt": now_iso(90), "notes": "edited notes",
                        "items": w.item_bodies()},
        path=lambda w: f"/api/meals/{w.meal_id}", readback=readback_get(lambda w, a: f"/api/meals/{w.meal_id}")),
    "POST /api/meals/{id}/consume": dict(
        body=lambda w: {"notes": "consumed notes", "eatenAt": now_iso(30), "mealType": "snack"},
        path=lambda w: f"/api/meals/{w.meal_id}/consume", readback=readback_get(lambda w, a: f"/api/meals/{w.meal_id}"),
        optional=True),
    "POST /api/custom-meals": dict(body=lambda w: w.custom_meal_body(),
                                   readback=readback_get(lambda w, a: f"/api/custom-meals/{a.json()['id']}")),
    "PUT /api/custom-meals/{id}": dict(body=lambda w: w.custom_meal_body(), path=lambda w: f"/api/custom-meals/{w.custom_id}",
                                       readback=readback_get(lambda w, a: f"/api/custom-meals/{w.custom_id}")),
    "POST /api/custom-meals/{id}/log": dict(
        body=lambda w: {"notes": "logged notes", "eatenAt": now_iso(20), "mealType": "dinner"},
        path=lambda w: f"/api/custom-meals/{w.custom_id}/log", readback=readback_get(lambda w, a: f"/api/meals/{a.json()['id']}"),
        optional=True),
    "POST /api/metrics/weight": dict(body=lambda w: {"date": yesterday(), "weight": 80.5, "unit": "kg", "notes": "fuzz weight"},
                                     readback=readback_get(lambda w, a: "/api/metrics/weight?days=366")),
    "POST /api/metrics/ketones": dict(body=lambda w: {"date": yesterday(), "level": 0.8, "notes": "fuzz ketones"},
                                      readback=readback_get(lambda w, a: "/api/metrics/ketones?days=366")),
    # A 1x1 PNG as base64 JSON, one of the photo's documented bodies.
    "PUT /api/meals/{id}/photo": dict(
        body=lambda w: {"image": "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="},
        path=lambda w: f"/api/meals/{w.meal_id}/photo"),
    # The stand-in provider on loopback: the key is checked there, as a real provider would check it.
    "PUT /api/users/vision-key": dict(
        body=lambda w: {"apiKey": f"sk-fuzz-{uuid.uuid4().hex}", "baseUrl": PROVIDER_URL, "model": "gpt-4o-mini"}),
    "PUT /api/users/vision-usage/budget": dict(body=lambda w: {"monthlyBudgetUsd": 25},
                                               readback=readback_get(lambda w, a: "/api/users/vision-usage")),
    "POST /api/metrics/water": dict(body=lambda w: {"date": yesterday(), "millilitres": 250}),
    "POST /api/sync/meals/import": dict(body=lambda w: {"meals": [dict(w.meal_body(), id=str(uuid.uuid4()))]}),
    "POST /api/sync/metrics/import": dict(body=lambda w: {"weighIns": [{"date": yesterday(), "weight": 80.2, "unit": "kg"}]}),
    "POST /api/sync/import": dict(
        body=lambda w: {"meals": [dict(w.meal_body(), id=str(uuid.uuid4()))],
                        "weighIns": [{"date": yesterday(), "weight": 80.3, "unit": "kg"}]}),
    "POST /api/foods/products": dict(body=lambda w: w.product_body(),
                                     readback=readback_get(lambda w, a: f"/api/foods/{a.json()['id']}")),
    # Only the author edits; the barcode cannot change.
    "PUT /api/foods/products/{id}": dict(
        body=lambda w: w.product_body(w.product_barcodes[w.product_id]), path=lambda w: f"/api/foods/products/{w.product_id}",
        readback=readback_get(lambda w, a: f"/api/foods/{w.product_id}")),
    "POST /api/foods/products/{id}/reports": dict(
        body=lambda w: {"reason": "wrong_nutrition", "note": "fuzz report"}, path=lambda w: f"/api/foods/products/{w.reported_id}/reports"),
    "POST /api/share/meal/{id}": dict(body=lambda w: {"expiresInDays": 7, "includePhoto": False, "showDisplayName": True},
                                      path=lambda w: f"/api/share/meal/{w.meal_id}", optional=True),
}


def example_body(operation):
    content = (operation.spec.get("requestBody") or {}).get("content", {})
    for media, spec in content.items():
        if media.startswith("application/json"):
            if "example" in spec:
                return spec["example"]
            for example in (spec.get("examples") or {}).values():
                if isinstance(example, dict) and "value" in example:
                    return example["value"]
    return {}


# --- JSON-body cases --------------------------------------------------------------------------------------------

def body_cases(world, operation):
    label = operation.label
    entry = VALID.get(label)
    note = [] if entry else [f"no valid body known for {label}; the document's example (or {{}}) is used"]
    make_body = entry["body"] if entry else (lambda w: example_body(operation))
    make_path = entry.get("path") if entry else None
    limit = route_limit(operation.path)
    optional = (entry or {}).get("optional", not operation.body_required)
    readback = (entry or {}).get("readback")
    not_stored = (entry or {}).get("not_stored", set())

    def path():
        if make_path:
            return make_path(world)
        return fill_path(world, operation)

    def token_for(body):
        if entry and "token" in entry:
            return entry["token"](world, body)
        return world.token

    def fire(case, body_bytes, content_type="application/json", expected=None, recipe=None, chunked=False, body=None,
             problems_after=None):
        body = body if body is not None else make_body(world)
        token = token_for(body)
        headers = {"Content-Type": content_type}
        answer = run(operation, label, case, operation.method, path(), body_bytes(body) if callable(body_bytes) else body_bytes,
                     headers, expected, recipe, chunked, token, problems_after=problems_after)
        if entry and "after" in entry and 200 <= answer.status < 300:
            entry["after"](world, answer, body)
        return answer

    for line in note:
        results.append({"operation": label, "case": "set-up", "status": None, "problems": [], "note": line, "repro": ""})

    # A valid body first: the baseline the other cases differ from.
    fire("valid body", lambda b: json.dumps(b).encode(), expected=(entry or {}).get("baseline", {"2xx"}))

    filler = limit + 4096
    big = b'{"text":"' + b"a" * filler + b'"}'
    recipe = f"b'{{\"text\":\"' + b'a' * {filler} + b'\"}}'"
    fire(f"oversized body ({len(big)} bytes, Content-Length)", big, expected={413}, recipe=recipe)
    fire(f"oversized body ({len(big)} bytes, chunked)", big, expected={413}, recipe=recipe, chunked=True)
    fire("malformed JSON", b'{"oops": nope, }', expected={400})
    fire("truncated JSON", lambda b: json.dumps(b).encode()[: max(1, len(json.dumps(b)) // 2)], expected={400})
    # An optional body left empty is no body: the operation may then miss a value it needs elsewhere (a refresh token
    # without the cookie), 422 naming it.
    fire("empty body", b"", expected={"2xx", 400, 422} if optional else {400})
    fire("text/plain body", lambda b: json.dumps(b).encode(), content_type="text/plain", expected={415})
    fire("form body", b"email=a%40b.c&password=x", content_type="application/x-www-form-urlencoded", expected={415})
    fire("no content type", lambda b: json.dumps(b).encode(), content_type=None, expected=None)
    # Well-formed JSON of the wrong shape is 422 naming `body`; 400 is only for bytes that are not JSON.
    fire("JSON array instead of object", b"[]", expected={422})
    fire("JSON null body", b"null", expected={"2xx", 422} if optional else {422})

    def invalid_utf8(body):
        strings = [p for p, v in leaves(body) if isinstance(v, str)]
        if strings:
            document = with_value(body, strings[0], SENTINEL)
        else:
            # Beside the valid body's fields, so that a decoder skipping it unread still finds what it needs.
            document = dict(body, text=SENTINEL) if isinstance(body, dict) else {"text": SENTINEL}
        text = json.dumps(document).encode()
        return text.replace(SENTINEL.encode(), b"ab\xff\xfe\xc3\x28cd")
    has_strings = any(isinstance(v, str) for _, v in leaves(make_body(world)))
    # A body without string fields gets the bytes in an unknown field, which a decoder may skip unread.
    fire("invalid UTF-8 in a string" if has_strings else "invalid UTF-8 in an unknown field", invalid_utf8,
         expected={400} if has_strings else {400, "2xx"})
    depth = 100_000
    fire(f"nested arrays, depth {depth}", b"[" * depth + b"]" * depth, expected={400}, recipe=f"b'[' * {depth} + b']' * {depth}")
    fire(f"nested objects, depth {depth // 10}", b'{"a":' * (depth // 10) + b"1" + b"}" * (depth // 10), expected={400, 422},
         recipe=f"b'{{\"a\":' * {depth // 10} + b'1' + b'}}' * {depth // 10}")

    sample = make_body(world)
    if isinstance(sample, dict) and sample:
        first = next(iter(sample))
        nest = 5000

        def nested_field(body):
            text = json.dumps(with_value(body, (first,), SENTINEL)).encode()
            return text.replace(f'"{SENTINEL}"'.encode(), b'{"a":' * nest + b"1" + b"}" * nest)
        fire(f"field {first} nested {nest} deep", nested_field, expected={400, 422})

    # Numbers: every numeric field of the valid body.
    for field_path, value in leaves(sample):
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            continue
        for raw in RAW_NUMBERS:
            def numeric(body, field_path=field_path, raw=raw):
                return json.dumps(with_value(body, field_path, SENTINEL)).encode().replace(f'"{SENTINEL}"'.encode(), raw.encode())
            expected = {400} if raw == "NaN" else {"2xx", 400, 422}
            fire(f"{path_name(field_path)} = {raw}", numeric, expected=expected)

    # Strings: SQL and HTML in every string field; accepted ones must read back verbatim.
    for field_path, value in leaves(sample):
        if not isinstance(value, str):
            continue
        for injection in INJECTIONS:
            body = with_value(make_body(world), field_path, injection)

            def check(answer, body=body, injection=injection, field_path=field_path):
                if not 200 <= answer.status < 300 or readback is None or field_path[0] in not_stored:
                    return []
                try:
                    documents = readback(world, answer, body)
                except Exception as error:  # noqa: BLE001  a read-back that cannot run is a finding too
                    return [f"read-back failed: {error!r}"]
                problems = [d for d in documents if isinstance(d, str)]
                found = any(injection == text for d in documents if not isinstance(d, str) for text in strings_in(d))
                if not found and not problems:
                    problems.append(f"accepted {injection!r} in {path_name(field_path)} but the read-back does not hold it verbatim")
                return problems
            fire(f"{path_name(field_path)} = {injection}", lambda b: json.dumps(b).encode(), body=body, expected=None,
                 problems_after=check)


# --- path and query parameters ------------------------------------------------------------------------------------

BAD_SEGMENTS = [
    ("not a UUID", "not-a-uuid"), ("unknown UUID", "00000000-0000-0000-0000-000000000000"),
    ("SQL", "%27%20OR%201%3D1--"), ("HTML", "%3Cscript%3Ealert(1)%3C%2Fscript%3E"), ("4096 digits", "9" * 4096),
    ("path traversal", "..%2F..%2Fetc%2Fpasswd"), ("NUL byte", "%00"), ("invalid UTF-8", "%FF%FE"),
    ("impossible date", "2025-02-30"), ("huge date", "99999-12-31"), ("year zero", "0000-01-01"),
    ("negative year", "-0001-01-01"), ("1e308", "1e308"),
]
BAD_QUERY_VALUES = [
    ("empty", ""), ("-1", "-1"), ("0", "0"), ("1e308", "1e308"), ("2^64", "18446744073709551616"), ("text", "abc"),
    ("SQL", "%27%20OR%201%3D1--"), ("HTML", "%3Cscript%3E"), ("impossible date", "2025-02-30"), ("huge date", "99999-01-01"),
    ("huge month", "99999-01"), ("invalid UTF-8", "%FF"), ("4096 characters", "A" * 4096),
]


def valid_segment(world, operation, name):
    path = operation.path
    if "{" + name + "}" not in path:
        return "x"
    if path.startswith("/api/meals/"):
        return world.meal_id
    if path.startswith("/api/custom-meals/"):
        return world.custom_id
    if path.startswith("/api/foods/products/"):
        return world.product_id
    if path.startswith("/api/foods/barcode/"):
        return world.product_barcodes[world.product_id]
    if path.startswith("/api/foods/"):
        return world.food_id
    if path.startswith("/api/share/meal/"):
        return world.meal_id
    if path.startswith("/api/share/") or path.startswith("/shared/"):
        return world.share_token
    if path.startswith("/api/auth/sessions/"):
        return str(uuid.uuid4())  # never the caller's own session
    if "date" in name:
        return yesterday()
    return str(uuid.uuid4())


def fill_path(world, operation, override=None):
    path = operation.path
    for name in operation.path_params:
        value = override[1] if override and override[0] == name else valid_segment(world, operation, name)
        path = path.replace("{" + name + "}", value)
    return path


SKIP_FOR_PARAMETERS = {"DELETE /api/users/me", "POST /api/auth/logout", "POST /api/auth/logout-all"}


def parameter_cases(world, operation):
    label = operation.label
    if label in SKIP_FOR_PARAMETERS:
        return
    entry = VALID.get(label)

    def body():
        if not operation.json_body:
            return None, {}
        value = entry["body"](world) if entry else example_body(operation)
        return json.dumps(value).encode(), {"Content-Type": "application/json"}

    for name in operation.path_params:
        for title, segment in BAD_SEGMENTS:
            payload, headers = body()
            run(operation, label, f"path {name}: {title}", operation.method, fill_path(world, operation, (name, segment)),
                payload, headers, expected=None, token=world.token)
    for parameter in operation.query_params:
        name = parameter["name"]
        for title, value in BAD_QUERY_VALUES:
            payload, headers = body()
            run(operation, label, f"query {name}: {title}", operation.method, f"{fill_path(world, operation)}?{name}={value}",
                payload, headers, expected=None, token=world.token)
    if operation.query_params:
        name = operation.query_params[0]["name"]
        payload, headers = body()
        run(operation, label, f"query {name} twice", operation.method, f"{fill_path(world, operation)}?{name}=1&{name}=abc",
            payload, headers, expected=None, token=world.token)


# --- HTML escaping on the public page ---------------------------------------------------------------------------

def escaping_case(world, operations):
    title = HTML[0]
    meal_id = world.new_meal(title=title)
    token = world.share(meal_id)
    if not token:
        results.append({"operation": "GET /shared/{token}", "case": "HTML title escaped", "status": None,
                        "problems": ["could not share the meal to check its page"], "repro": ""})
        return
    for template, accept, check in [
        ("/shared/{token}", "text/html", lambda body: "<script>alert(1)</script>" not in body and "&lt;script&gt;" in body),
        ("/shared/{token}/card.svg", "image/svg+xml", lambda body: "<script>alert(1)</script>" not in body),
        ("/api/share/{token}", "application/json", lambda body: title in strings_in_json(body)),
    ]:
        path = template.replace("{token}", token)
        operation = fuzzlib.operation_for(operations, "GET", path)
        answer = send("GET", path, headers={"Accept": accept})
        text = answer.body.decode("utf-8", "replace")
        problems = [] if answer.status == 200 and check(text) else [
            f"a meal titled {title!r}: {template} answered {answer.status} and does not show it "
            + ("escaped" if accept != "application/json" else "verbatim")]
        record(operation, f"GET {template}", "HTML title shown safely", answer, {200}, problems,
               f"curl -sS -H 'Accept: {accept}' {fuzzlib.GATEWAY}{template.replace('{token}', '$SHARE_TOKEN')}")


def strings_in_json(text):
    try:
        return list(strings_in(json.loads(text)))
    except ValueError:
        return []


def main():
    if len(sys.argv) != 3:
        raise SystemExit(__doc__)
    document = json.load(open(sys.argv[1]))
    operations = fuzzlib.load_operations(document)
    started = time.monotonic()
    global PROVIDER_URL
    PROVIDER_URL = start_stand_in_provider()
    world = World()
    print(f"    accounts and resources ready (meal {world.meal_id}, custom meal {world.custom_id}, food {world.food_id})", flush=True)
    known = {o.label for o in operations}
    for label in VALID:
        if label not in known:
            results.append({"operation": label, "case": "set-up", "status": None,
                            "problems": [f"{label} takes a JSON body in the code but is not in the OpenAPI document"], "repro": ""})
    for operation in operations:
        if operation.json_body:
            body_cases(world, operation)
        if operation.path_params or operation.query_params:
            parameter_cases(world, operation)
        sent = sum(1 for r in results if r["operation"] == operation.label and r["status"] is not None)
        if sent:
            print(f"    {operation.label}: {sent} cases", flush=True)
    escaping_case(world, operations)
    with open(sys.argv[2], "w") as handle:
        json.dump({"seconds": time.monotonic() - started, "results": results}, handle, indent=1)
    # The run's own accounts go (their meals, links and metrics with them, through user.deleted); best effort.
    for account in (world.main, world.login_user, world.refresh_user):
        call("DELETE", "/api/users/me", {"password": account["password"]}, token=account["token"])
    answer = call("POST", "/api/auth/login", {"email": world.password_user["email"], "password": world.password_current})
    if answer.status == 200:
        session = answer.json()
        call("DELETE", "/api/users/me", {"password": world.password_current}, token=session.get("accessToken") or session.get("token"))
    failed = sum(1 for r in results if r["problems"])
    print(f"    {len(results)} targeted cases in {time.monotonic() - started:.0f} s, {failed} with problems")


if __name__ == "__main__":
    main()
