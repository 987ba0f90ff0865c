"""schemathesis hooks and checks of deploy/fuzz (loaded through SCHEMATHESIS_HOOKS).

- map_case: a schema-valid case's Idempotency-Key is made unique to it, as a client makes one per request.
- after_call: after an answer of 502, 503 or 504 the services are probed directly, and one that stopped answering
  is recorded with the request that preceded it (and started again when deploy/fuzz started the stack); see
  fuzzlib.watch_crash. Every answer also feeds what the refusals below are checked against: the Idempotency-Key
  each successful write used, and every `nextCursor` the API answered.
- the check `error_shape_and_field_paths` (run with the built-in ones under `--checks all`): every error answer in
  JSON is the one error shape, and a 422 names its fields in the one spelling (`items[0].productId`, `body` for the
  body itself), the same rule as the targeted cases' (fuzzlib.error_shape_problem, fuzzlib.FIELD_PATH).
- filter_failure: reads of what is shared by design (the food table, the community's products) are not object-level
  authorization failures (SHARED_BY_DESIGN). And the API document says what JSON Schema can say of a request; a few
  refusals depend on what it cannot say: arithmetic between fields (a label's energy against its macros), a barcode's
  check digit, the clock, the food table's rows, what earlier requests did (an Idempotency-Key used before, a cursor
  the API made). A "schema-valid request rejected" (positive_data_acceptance) failure is dropped only when the answer
  is a refusal of that kind and every field it names is one of those rules AND the rule's own condition is checked to
  hold here (the key was used for another request, the check digit is wrong, the dates are 367 days apart...). Each
  drop is written to $FUZZ_WORK/explained.jsonl; report.py prints them by rule with the rule's reason (RULES below)."""
import datetime
import itertools
import json
import os
import re
import sys
import threading
import urllib.parse

import schemathesis

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fuzzlib  # noqa: E402

_lock = threading.Lock()
# Idempotency-Key -> the (caller, method, path, body) of each request a 2xx answered with it.
_used_keys = {}
# (operation path, nextCursor) of every answer that carried one: a cursor is made for the list that answered it.
_cursors = set()
# foodId or productId -> whether GET /api/foods/{id} found it (as the owner).
_found_foods = {}


@schemathesis.hook
def after_call(context, case, response):
    if response.status_code in (502, 503, 504):
        try:
            repro = case.as_curl_command()
        except Exception:  # noqa: BLE001  the record matters more than its curl line
            repro = f"{case.method} {case.formatted_path}"
        fuzzlib.watch_crash(f"{case.method} {case.path}", "schemathesis", repro)
    if 200 <= response.status_code < 300:
        key = _header(case.headers, "Idempotency-Key")
        if key is not None:
            with _lock:
                _used_keys.setdefault(key, set()).add(_fingerprint(case))
        try:
            answer = json.loads(response.content)
        except ValueError:
            answer = None
        if isinstance(answer, dict) and isinstance(answer.get("nextCursor"), str):
            with _lock:
                _cursors.add((case.path, answer["nextCursor"]))


_key_serial = itertools.count()


@schemathesis.hook
def map_case(context, case):
    """A schema-valid case's Idempotency-Key made its own, as a client makes one per request (a UUID): a key shared by
    two different requests is answered 422 `idempotency_key_reused`, which would stand in for the operation's own
    answer in most positive cases. Still 1 to 255 visible ASCII characters; negative cases keep theirs."""
    meta = getattr(case, "meta", None)
    mode = getattr(getattr(meta, "generation", None), "mode", None)
    if mode is None or not getattr(mode, "is_positive", False):
        return case
    for name in list(case.headers or {}):
        value = case.headers[name]
        if name.lower() == "idempotency-key" and isinstance(value, str) and re.fullmatch(r"[!-~]{1,255}", value):
            suffix = f"~{os.getpid()}.{next(_key_serial)}"
            case.headers[name] = value[:255 - len(suffix)] + suffix
    return case


@schemathesis.check
def error_shape_and_field_paths(ctx, response, case):
    """An error answer (4xx, 5xx) in JSON is {"error": {"code", "message", "details", "requestId"}}; a 422's details
    name each field as `items[0].productId` (dots between keys, indices in brackets; a key that is not a name as a
    JSON string in brackets; `body` for the body); a 400 `malformed_body` names no field but `body`. Health reports
    (their own shape by design) are left out."""
    if response.status_code < 400 or case.path.startswith("/health"):
        return None
    headers = {name.lower(): ", ".join(values) for name, values in response.headers.items()}
    if not headers.get("content-type", "").lower().startswith("application/json"):
        return None  # content_type_conformance holds the answer to the document's media types
    problem = fuzzlib.error_shape_problem(fuzzlib.Answer(response.status_code, headers, response.content))
    if problem:
        raise AssertionError(f"{response.status_code}: {problem}")
    return None


# --- refusals JSON Schema cannot state ---------------------------------------------------------------------------

def _header(headers, name):
    for key, value in (headers or {}).items():
        if key.lower() == name.lower():
            return value
    return None


def _fingerprint(case):
    body = case.body if isinstance(case.body, (dict, list, str, int, float, bool, type(None))) else repr(case.body)
    return (_header(case.headers, "Authorization"), case.method, case.formatted_path, json.dumps(body, sort_keys=True, default=repr))


def _path(case, name):
    """A path parameter as the server reads it (schemathesis keeps them percent-encoded)."""
    value = (case.path_parameters or {}).get(name)
    return urllib.parse.unquote(value) if isinstance(value, str) else value


def _body(case):
    return case.body if isinstance(case.body, dict) else {}


def _at(value, path):
    """The value at a details path (`items[0].grams`) of a JSON body; None when absent."""
    for step in re.findall(r"[A-Za-z_$][A-Za-z0-9_$-]*|\[[0-9]+\]", path):
        if step.startswith("["):
            index = int(step[1:-1])
            value = value[index] if isinstance(value, list) and index < len(value) else None
        else:
            value = value.get(step) if isinstance(value, dict) else None
    return value


def _number(value):
    return value if isinstance(value, (int, float)) and not isinstance(value, bool) else None


_RFC3339 = re.compile(r"(\d{4})-(\d\d)-(\d\d)[Tt](\d\d):(\d\d):(\d\d)(\.\d+)?([Zz]|[+-]\d\d:\d\d)")


def _timestamp(text):
    """An RFC 3339 date-time as the server reads it (RFC3339Timestamp: a leap second is the next second); None else."""
    match = _RFC3339.fullmatch(str(text))
    if not match:
        return None
    year, month, day, hour, minute, second = (int(match.group(i)) for i in range(1, 7))
    zone = match.group(8)
    offset = datetime.timedelta(0) if zone in "Zz" else (1 if zone[0] == "+" else -1) * datetime.timedelta(hours=int(zone[1:3]), minutes=int(zone[4:6]))
    try:
        base = datetime.datetime(year, month, day, hour, minute, min(second, 59), tzinfo=datetime.timezone.utc)
    except ValueError:
        return None
    return base + datetime.timedelta(seconds=max(second - 59, 0) + float(match.group(7) or 0)) - offset


def _check_digit_wrong(code):
    digits = re.sub(r"[ -]", "", str(code or ""))
    if not digits.isdigit() or len(digits) not in (8, 12, 13, 14):
        return False
    readings = [digits]
    if len(digits) == 8 and digits[0] in "01":  # an 8-digit code may also be a UPC-E, expanded to a UPC-A (GTIN.expandUPCE)
        d = digits[1:7]
        middle = {"0": d[0] + d[1] + d[5] + "0000" + d[2:5], "1": d[0] + d[1] + d[5] + "0000" + d[2:5],
                  "2": d[0] + d[1] + d[5] + "0000" + d[2:5], "3": d[0:3] + "00000" + d[3:5],
                  "4": d[0:4] + "00000" + d[4]}.get(d[5], d[0:5] + "0000" + d[5])
        readings.append(digits[0] + middle + digits[7])

    def valid(number):
        total = sum(int(c) * (3 if i % 2 == 0 else 1) for i, c in enumerate(reversed(number[:-1])))
        return (10 - total % 10) % 10 == int(number[-1])
    return not any(valid(reading) for reading in readings)


def _owner_token():
    return json.load(open(os.path.join(os.environ["FUZZ_WORK"], "user.json")))["token"]


def _food_missing(food_id):
    """Whether the foods service does not know this table food (GET /api/foods/{id} as the owner: 404)."""
    with _lock:
        if food_id in _found_foods:
            return not _found_foods[food_id]
    answer = fuzzlib.call("GET", "/api/foods/" + urllib.parse.quote(str(food_id), safe=""), token=_owner_token())
    with _lock:
        _found_foods[food_id] = answer.status == 200
    return answer.status == 404


def _product_unknown_to_meals(product_id):
    """Whether meals cannot know this product yet: foods does not have it (404), holds it, or changed it in the last
    15 s (meals learns products from `food.product_changed`, "one added a moment ago may take a second to arrive")."""
    answer = fuzzlib.call("GET", "/api/foods/" + urllib.parse.quote(str(product_id), safe=""), token=_owner_token())
    if answer.status == 404:
        return True
    product = answer.json() or {}
    changed = _timestamp(product.get("updatedAt") or product.get("createdAt"))
    recent = changed is not None and datetime.datetime.now(datetime.timezone.utc) - changed < datetime.timedelta(seconds=15)
    return recent or product.get("status") not in (None, "active")


def _saved_item_lost_serving(case, key):
    """Whether the custom meal being logged holds, at `key`'s item, a product item without grams whose product's label
    (GET /api/foods/{id} as the owner) gives no serving size now."""
    meal = fuzzlib.call("GET", "/api/custom-meals/" + urllib.parse.quote(str(_path(case, "id")), safe=""), token=_owner_token())
    if meal.status != 200:
        return False
    item = _at(meal.json() or {}, key.rsplit(".", 1)[0])
    if not isinstance(item, dict) or not item.get("productId") or item.get("grams") is not None:
        return False
    product = fuzzlib.call("GET", "/api/foods/" + urllib.parse.quote(str(item["productId"]), safe=""), token=_owner_token())
    if product.status != 200:
        return False
    label = product.json() or {}
    return not label.get("servingSize")


def _days_apart(case):
    start, end = (case.query or {}).get("from"), (case.query or {}).get("to")
    try:
        return (datetime.date.fromisoformat(end) - datetime.date.fromisoformat(start)).days
    except (TypeError, ValueError):
        return None


class Rule:
    """A refusal the document cannot state: where (operation and the field's details key), what the answer says,
    and the condition checked on the request itself."""

    def __init__(self, name, reason, operation, key=None, message=None, code=None, status=422, holds=None):
        self.name, self.reason, self.status = name, reason, status
        self.operation = re.compile(operation)
        self.key = re.compile(key) if key else None
        self.message = re.compile(message) if message else None
        self.code = code
        self.holds = holds or (lambda case, key: True)

    def explains(self, case, status, code, key, message):
        if status != self.status or not self.operation.search(f"{case.method} {case.path}"):
            return False
        if self.code is not None and code != self.code:
            return False
        if self.key is not None and (key is None or not self.key.fullmatch(key)):
            return False
        if self.message is not None and not self.message.search(message or ""):
            return False
        return bool(self.holds(case, key))


ITEM = r"(?:items|meals\[[0-9]+\]\.items|customMeals\[[0-9]+\]\.items)\[[0-9]+\]"
MEAL_WRITES = r"^(POST /api/meals|PUT /api/meals/\{id\}|POST /api/custom-meals|PUT /api/custom-meals/\{id\}|POST /api/sync/(meals/)?import)$"


def _item_heavier(case, key):
    item = _at(_body(case), key.rsplit(".", 1)[0])
    grams = _number((item or {}).get("grams"))
    if grams is None:
        return False
    field = key.rsplit(".", 1)[1]
    if field == "protein":
        return sum(_number(item.get(name)) or 0 for name in ("protein", "carbs", "fat")) > grams * 1.01
    return (_number(item.get(field)) or 0) > grams * 1.01


def _label(case, key):
    basis = key.split(".")[0]
    return _body(case).get(basis) or {}


def _label_holds(case, key):
    label = _label(case, key)
    field = key.split(".", 1)[1] if "." in key else ""
    number = {name: _number(label.get(name)) for name in ("calories", "protein", "carbs", "fat", "sugars", "saturatedFat", "sodium", "salt")}
    if field == "sugars":
        return None not in (number["sugars"], number["carbs"]) and number["sugars"] > number["carbs"] + 0.05
    if field == "saturatedFat":
        return None not in (number["saturatedFat"], number["fat"]) and number["saturatedFat"] > number["fat"] + 0.05
    if field == "salt":
        return None not in (number["salt"], number["sodium"])
    if field == "calories":
        return None not in (number["calories"], number["protein"], number["carbs"], number["fat"])
    if field == "":
        macros = [number[name] for name in ("protein", "carbs", "fat")]
        return None not in macros and sum(macros) > (150 if key.startswith("per100ml") else 100) + 0.5
    return False


RULES = [
    Rule("idempotency key used before", "a key's answer depends on the requests sent with it before (the same key "
         "with another request is 422 `idempotency_key_reused`, as the IETF draft asks): checked that this run sent the "
         "key with another request that succeeded", r".", code="idempotency_key_reused",
         holds=lambda case, key: any(print_ != _fingerprint(case) for print_ in _used_keys.get(_header(case.headers, "Idempotency-Key"), ()))),
    Rule("cursor this API did not make", "a cursor is opaque text this API made; the document gives its form, not "
         "which texts it made: checked that no answer of this operation in this run carried it as `nextCursor`", r".", code="invalid_cursor",
         holds=lambda case, key: all((case.path, value) not in _cursors for value in (
             (case.query or {}).get("cursor"), (case.query or {}).get("since")) if value is not None)),
    Rule("reset token never mailed", "a password-reset token exists only once mailed to the account's address, which "
         "the run does not read: every token it sends is one the API never issued", r"^POST /api/auth/password-reset/confirm$",
         code="invalid_reset_token"),
    Rule("common password", "the list of the commonest passwords (the server's `PasswordPolicy`) is data, not a schema",
         r"^(POST /api/auth/register|PUT /api/auth/password|POST /api/auth/password-reset/confirm)$", key=r"password|newPassword",
         message=r"too common"),
    Rule("refresh token in the body or the cookie", "a refresh token comes in the body or, with `X-Session-Transport: "
         "cookie`, in a cookie: one of two places, which JSON Schema cannot relate; checked that the body has none",
         r"^POST /api/auth/refresh$", key=r"refreshToken", message=r"is required",
         holds=lambda case, key: _body(case).get("refreshToken") is None),
    Rule("barcode check digit", "a barcode's last digit is a GS1 check digit of the others: checked that it is wrong",
         r".", key=r"barcode", message=r"check digit|not a barcode",
         holds=lambda case, key: _check_digit_wrong(_body(case).get("barcode") or _path(case, "code") or (case.query or {}).get("barcode"))),
    Rule("food the table lacks", "a `foodId` is one of the USDA table's 8,858 foods: checked that GET /api/foods/{id} "
         "answers 404 for it", MEAL_WRITES, key=ITEM + r"\.foodId", message=r"No food",
         holds=lambda case, key: _food_missing(_at(_body(case), key))),
    Rule("product meals does not know", "a `productId` names a product some user added or Open Food Facts gave, which "
         "meals learns from foods' events: checked that GET /api/foods/{id} answers 404 for it, or that foods holds it or "
         "changed it in the last 15 s (its event may not have arrived)", MEAL_WRITES, key=ITEM + r"\.productId",
         message=r"No product", holds=lambda case, key: _product_unknown_to_meals(_at(_body(case), key))),
    Rule("item heavier than its weight", "protein, carbs and fat together (fibre, sugars and saturated fat each) no "
         "heavier than the item: arithmetic between fields; checked on the item", MEAL_WRITES,
         key=ITEM + r"\.(protein|fiber|sugars|saturatedFat)", message=r"weigh more|Cannot weigh", holds=_item_heavier),
    Rule("portion from the table or the label", "a portion's weight comes from the food's household measures or the "
         "product's serving size, rows of data the document does not hold", MEAL_WRITES,
         key=ITEM + r"\.(quantity|unit|servings|grams)", message=r"portion weighs over|Unknown unit|gives no serving size"),
    Rule("saved product without its serving", "a custom meal's item in servings of a product is weighed by the label's "
         "serving size when the meal is logged; the product's author may have removed it since the meal was saved, data "
         "the log request does not carry: checked that the saved meal names a product, in servings or with no weight, "
         "whose label now gives no serving size", r"^POST /api/custom-meals/\{id\}/log$", key=r"items\[[0-9]+\]\.grams",
         message=r"gives no serving size", holds=lambda case, key: _saved_item_lost_serving(case, key)),
    Rule("time ahead of the clock", "a meal's time is at most 5 minutes ahead of the server's clock and not before 2000: "
         "checked against the value", r".", key=r"(.*\.)?eatenAt", message=r"in the past",
         holds=lambda case, key: (lambda at: at is not None and (at.year < 2000 or at.tzinfo is None or at > datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(minutes=5)))(
             _timestamp(_at(_body(case), key) if _at(_body(case), key) is not None else (case.query or {}).get("eatenAt")))),
    Rule("label arithmetic", "a label's sugars within carbs, saturated fat within fat, salt agreeing with sodium, energy "
         "agreeing with the macros and the macros within 100 g: arithmetic between fields; checked on the label",
         r"^(POST /api/foods/products|PUT /api/foods/products/\{id\})$",
         key=r"per100(g|ml)(\.(sugars|saturatedFat|salt|calories))?", holds=_label_holds),
    Rule("range of two dates", "`from` no later than `to`, at most 366 days apart: two query parameters, which JSON "
         "Schema cannot relate; checked on the dates", r"^GET /api/summaries$", key=r"to", message=r"366 days|before from",
         holds=lambda case, key: (lambda days: days is not None and (days < 0 or days >= 366))(_days_apart(case))),
    Rule("name and its alias", "`name` is an alias of `displayName`: both given must be equal, a relation between two "
         "fields; checked that both are given and differ", r"^POST /api/auth/register$", key=r"name", message=r"must equal",
         holds=lambda case, key: isinstance(_body(case).get("name"), str) and isinstance(_body(case).get("displayName"), str)
         and _body(case)["name"].strip() != _body(case)["displayName"].strip()),
    Rule("date after the user's today", "a day is at most the user's today in the profile's zone: the clock's and the "
         "profile's; checked that the day is after today somewhere on Earth (UTC-12)", r".",
         key=r"(.*\.)?date", message=r"in the future|after (the user's )?today",
         holds=lambda case, key: _after_today(_at(_body(case), key) if _at(_body(case), key) is not None else _path(case, "date"))),
    Rule("time zone names", "a time zone is a name of the IANA time zone database (about 600), data rather than a "
         "form: checked that the name is not in the database Python knows", r"^(POST /api/auth/register|PUT /api/users/profile)$",
         key=r"timeZone", message=r"IANA", holds=lambda case, key: _unknown_zone(_body(case).get("timeZone"))),
    Rule("macros summing to 100", "a custom split's three percentages sum to 100: arithmetic between fields; checked on "
         "the split", r"^PUT /api/users/profile$", key=r"customMacros", message=r"sum to 100",
         holds=lambda case, key: (lambda split: isinstance(split, dict) and abs(sum(_number(split.get(n)) or 0 for n in (
             "proteinPercent", "carbsPercent", "fatPercent")) - 100) >= 0.01)(_body(case).get("customMacros"))),
    Rule("form with the JSON body's rules", "a multipart analysis takes the JSON body's rules (AnalyzeJsonRequest's "
         "if/then/else); the form's schema cannot state them, as schemathesis 4.32.5 fails on conditionals beside a file "
         "part (\"Unsupported type: 'Binary'\"): checked that the form's fields, read as the JSON body, break those rules",
         r"^POST /api/analyze$", key=r"image|text|barcode|mealType|captureKind|eatenAt|tags",
         message=r"Send a photo|Send either|Only for kind=|A label is read", holds=lambda case, key: _form_breaks_json_rules(case)),
    Rule("birth date against the clock", "a birth date is not in the future and at most 130 years ago: the clock's; "
         "checked on the date", r"^PUT /api/users/profile$", key=r"birthDate", message=r"in the future|130 years",
         holds=lambda case, key: _birth_date_out(_body(case).get("birthDate"))),
    Rule("weight in the profile's unit", "a weight without its unit is in the profile's unit, which an earlier request "
         "set: checked that the body names no unit and the value is out of the other unit's range",
         r"^(POST /api/metrics/weight|PUT /api/users/profile)$", key=r"weight|targetWeight", message=r"Use 20 to|Use 44|between 20 and",
         holds=lambda case, key: _body(case).get("unit" if key == "weight" else "weightUnit") is None),
    Rule("items in all", "at most 500 items summed over several lists: arithmetic between fields; checked on the lists",
         r"^POST /api/sync/(meals/|metrics/)?import$", key=r"items|meals|weighIns", message=r"at most 500|1 to 500",
         holds=lambda case, key: sum(len(v) for v in _body(case).values() if isinstance(v, list)) > 500),
    Rule("barcode kept", "a product's barcode cannot change: the stored product's, which an earlier request set; checked "
         "that the body's barcode reads to another GTIN than the product's", r"^PUT /api/foods/products/\{id\}$",
         key=r"barcode", message=r"cannot change", holds=lambda case, key: _barcode_changed(case)),
    Rule("photo by its bytes", "a photo is recognised by its bytes (JPEG, PNG, WebP, HEIC signatures), which the "
         "document names (`contentMediaType`) but JSON Schema does not check", r"^(POST /api/analyze|PUT /api/meals/\{id\}/photo)$",
         code="unsupported_image_type", status=415),
    Rule("vision provider's host", "whether a base URL's host resolves, and to a public address, is DNS's answer at the "
         "time, not the text's form (which the document's pattern gives)", r"^PUT /api/users/vision-key$", key=r"baseUrl",
         message=r"public host|cannot be resolved|https URL|must be a URL"),
    Rule("query fields of a label", "with the photo as the body the other fields are query parameters; `barcode` only and "
         "the meal fields never with `kind=label`: relations between query parameters; checked on the query",
         r"^POST /api/analyze$", key=r"barcode|mealType|captureKind|eatenAt|tags", message=r"Only for kind=",
         holds=lambda case, key: not isinstance(case.body, dict) and (case.query or {}).get(key) is not None),
    Rule("photo body empty", "a photo sent alone as the body must have bytes (`minLength: 1`, which schemathesis does "
         "not apply to binary bodies): checked that the body is empty", r"^(POST /api/analyze|PUT /api/meals/\{id\}/photo)$",
         key=r"image", message=r"Send a (JPEG|photo)", holds=lambda case, key: _raw_body_size(case) == 0),
    Rule("no food recognised", "a description's words are matched against the food table (8,858 foods), data the "
         "document does not hold", r"^POST /api/analyze$", code="no_food_recognised"),
]


def _after_today(day):
    try:
        value = datetime.date.fromisoformat(str(day))
    except ValueError:
        return False
    return value > (datetime.datetime.now(datetime.timezone.utc) - datetime.timedelta(hours=12)).date()


def _raw_body_size(case):
    """The size of a body sent as bytes (a photo alone); None for a JSON or form body."""
    if isinstance(case.body, (dict, list, str)) or case.body is None:
        return None
    data = getattr(case.body, "data", case.body)
    try:
        return len(data)
    except TypeError:
        return None


def _unknown_zone(name):
    import zoneinfo
    return not isinstance(name, str) or (name not in zoneinfo.available_timezones() and name not in ("UTC", "GMT"))


_json_rules = None


def _form_breaks_json_rules(case):
    """Whether a multipart analysis's fields, read as the JSON body (a file part as a string), break the conditions
    of AnalyzeJsonRequest (its if/then/else); a JSON body is not a form and is not checked here."""
    global _json_rules
    if not isinstance(case.body, dict) or "multipart" not in str(_header(case.headers, "Content-Type") or getattr(case, "media_type", "") or ""):
        return False
    import jsonschema_rs
    if _json_rules is None:
        document = json.load(open(os.path.join(os.environ["FUZZ_WORK"], "openapi.json")))
        schema = document["components"]["schemas"]["AnalyzeJsonRequest"]
        _json_rules = jsonschema_rs.validator_for({key: schema[key] for key in ("if", "then", "else")})
    fields = {name: (value if isinstance(value, str) else "photo") for name, value in case.body.items() if value is not None}
    if "tags" in fields:
        fields["tags"] = fields["tags"].split(",")
    return not _json_rules.is_valid(fields)


def _birth_date_out(day):
    try:
        value = datetime.date.fromisoformat(str(day))
    except ValueError:
        return False
    today = datetime.datetime.now(datetime.timezone.utc).date()
    return value >= today - datetime.timedelta(days=1) or value <= today - datetime.timedelta(days=int(130 * 365.25) - 2)


def _barcode_changed(case):
    barcode = re.sub(r"[ -]", "", str(_body(case).get("barcode") or ""))
    product = _path(case, "id")
    token = json.load(open(os.path.join(os.environ["FUZZ_WORK"], "user.json")))["token"]
    stored = (fuzzlib.call("GET", "/api/foods/" + urllib.parse.quote(str(product), safe=""), token=token).json() or {}).get("barcode")
    return stored is not None and barcode.zfill(14) != stored


def _explanation(case, response):
    """The rules that explain a refusal, one per field it names; None when one field is not explained."""
    try:
        error = json.loads(response.content)["error"]
    except (ValueError, KeyError, TypeError):
        return None
    details = error.get("details") or {}
    status, code = response.status_code, error.get("code")
    for rule in RULES:
        if rule.code is not None and rule.explains(case, status, code, None, error.get("message")):
            return [rule]
    if not details:
        return None
    found = []
    for key, message in details.items():
        rule = next((r for r in RULES if r.code is None and r.explains(case, status, code, key, message)), None)
        if rule is None:
            return None
        found.append(rule)
    return found


# Reads of what every signed-in user is answered by design: the USDA table's foods and the community's products,
# with their versions (docs/APP-GUIDE.md, "Packaged products"). Another user reading one is the rule, not a leak.
SHARED_BY_DESIGN = Rule(
    "shared by design", "the USDA table's foods and the products users add (with their versions) are answered to every "
    "signed-in user (docs/APP-GUIDE.md, \"Packaged products\"): the object-level authorization check's \"another user "
    "read it\" is the rule there; reads of one's own data keep the check", r"^GET /api/foods/(\{id\}|products/\{id\}/versions|barcode/\{code\})$",
    status=200)


def _record(rules, case, response):
    work = os.environ.get("FUZZ_WORK")
    if work:
        with _lock, open(os.path.join(work, "explained.jsonl"), "a") as handle:
            for rule in {r.name: r for r in rules}.values():
                handle.write(json.dumps({"rule": rule.name, "reason": rule.reason, "operation": f"{case.method} {case.path}",
                                         "status": response.status_code}) + "\n")


@schemathesis.hook
def filter_failure(context, failure, case, response):
    code = getattr(failure, "code", None)
    if code == "ST402" and SHARED_BY_DESIGN.operation.search(f"{case.method} {case.path}"):
        _record([SHARED_BY_DESIGN], case, response)
        return False
    if code != "ST202":
        return True
    rules = _explanation(case, response)
    if not rules:
        if os.environ.get("FUZZ_HOOKS_DEBUG") and os.environ.get("FUZZ_WORK"):
            with _lock, open(os.path.join(os.environ["FUZZ_WORK"], "hooks-debug.jsonl"), "a") as handle:
                handle.write(json.dumps({"operation": f"{case.method} {case.path}", "path": case.path_parameters, "query": case.query,
                                         "body": repr(case.body)[:300], "answer": response.content[:300].decode("utf-8", "replace")},
                                        default=repr) + "\n")
        return True
    _record(rules, case, response)
    return False
