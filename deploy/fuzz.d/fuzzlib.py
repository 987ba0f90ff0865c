"""What the bad-input run's scripts share: a raw HTTP/1.1 client (so that bodies, content types and broken bytes
go out exactly as written), the error-shape check, the OpenAPI operation table, and account set-up through the
gateway. Standard library only."""
import json
import os
import re
import socket
import time
import urllib.parse
from dataclasses import dataclass, field

GATEWAY = os.environ.get("FUZZ_GATEWAY_URL", "http://127.0.0.1:8080")


@dataclass
class Answer:
    status: int  # 0: no HTTP answer at all (connection refused, reset before a status line, timeout)
    headers: dict = field(default_factory=dict)  # lower-case names
    body: bytes = b""
    note: str = ""  # what happened on the wire besides the answer (body not fully sent, ...)
    seconds: float = 0.0

    def json(self):
        try:
            return json.loads(self.body)
        except ValueError:
            return None


def _split_url(url):
    parts = urllib.parse.urlsplit(url)
    return parts.hostname, parts.port or 80


def send(method, path, body=None, headers=None, chunked=False, timeout=60.0, base=None):
    """One request on its own connection. `body` is bytes sent as they are (Content-Length unless `chunked`);
    `headers` may hold None values to leave a header out. A server that answers early (413) and closes while the
    body is still being sent is read all the same."""
    host, port = _split_url(base or GATEWAY)
    lines = [f"{method} {path} HTTP/1.1", f"Host: {host}:{port}", "Connection: close", "User-Agent: nutritionai-fuzz"]
    for name, value in (headers or {}).items():
        if value is not None:
            lines.append(f"{name}: {value}")
    if body is not None:
        lines.append("Transfer-Encoding: chunked" if chunked else f"Content-Length: {len(body)}")
    head = ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")
    started = time.monotonic()
    note = ""
    try:
        sock = socket.create_connection((host, port), timeout=timeout)
    except OSError as error:
        return Answer(0, note=f"connect failed: {error}")
    send_timeout = min(timeout, 10.0)
    sock.settimeout(send_timeout)
    try:
        try:
            sock.sendall(head)
            if body is not None:
                step = 65536
                for offset in range(0, len(body), step):
                    piece = body[offset:offset + step]
                    if chunked:
                        piece = f"{len(piece):x}\r\n".encode() + piece + b"\r\n"
                    sock.sendall(piece)
                if chunked:
                    sock.sendall(b"0\r\n\r\n")
        except (BrokenPipeError, ConnectionResetError) as error:
            note = f"body not fully sent ({error.__class__.__name__})"
        except socket.timeout:
            note = f"body not fully sent (the server stopped reading for {send_timeout:.0f} s)"
        data = b""
        sock.settimeout(timeout)
        try:
            while True:
                piece = sock.recv(65536)
                if not piece:
                    break
                data += piece
        except ConnectionResetError:
            note = (note + "; " if note else "") + "connection reset while reading"
        except socket.timeout:
            note = (note + "; " if note else "") + f"timed out after {timeout:.0f} s"
    finally:
        sock.close()
    seconds = time.monotonic() - started
    if b"\r\n\r\n" not in data:
        return Answer(0, note=note or "no HTTP answer", seconds=seconds)
    raw_head, rest = data.split(b"\r\n\r\n", 1)
    head_lines = raw_head.decode("latin-1").split("\r\n")
    try:
        status = int(head_lines[0].split(" ")[1])
    except (IndexError, ValueError):
        return Answer(0, note=f"bad status line {head_lines[0]!r}", seconds=seconds)
    headers_in = {}
    for line in head_lines[1:]:
        if ":" in line:
            name, value = line.split(":", 1)
            headers_in[name.strip().lower()] = value.strip()
    if headers_in.get("transfer-encoding", "").lower() == "chunked":
        rest = _dechunk(rest)
    elif "content-length" in headers_in:
        rest = rest[:int(headers_in["content-length"])]
    return Answer(status, headers_in, rest, note, seconds)


def _dechunk(data):
    out = b""
    while data:
        line, _, data = data.partition(b"\r\n")
        try:
            size = int(line.split(b";")[0], 16)
        except ValueError:
            break
        if size == 0:
            break
        out += data[:size]
        data = data[size + 2:]
    return out


def call(method, path, payload=None, token=None, headers=None, **kwargs):
    """A JSON request: `payload` is encoded as JSON (None: no body)."""
    all_headers = {"Accept": "application/json"}
    if token:
        all_headers["Authorization"] = f"Bearer {token}"
    body = None
    if payload is not None:
        body = json.dumps(payload).encode()
        all_headers["Content-Type"] = "application/json"
    all_headers.update(headers or {})
    return send(method, path, body, all_headers, **kwargs)


ERROR_KEYS = {"code", "message", "details", "requestId"}
# The one spelling of a field's path in a refusal's details: keys joined by dots, indices in brackets
# (`items[0].productId`), `body` for the body itself; a header, path or query value by its name. A key that is not a
# name (an unknown field such as "" or "a.b") is a JSON string in brackets (`per100g["a.b"]`, `["\u0006"]`), without
# a control character (FieldPath in Shared/APIContracts/StrictDecoding).
_NAME = r"[A-Za-z_$][A-Za-z0-9_$-]*"
_QUOTED = r'\["(?:[^"\\\x00-\x1f\x7f-\x9f]|\\["\\/bfnrt]|\\u[0-9a-fA-F]{4})*"\]'
_STEP = rf"(?:\[[0-9]+\]|{_QUOTED})"
FIELD_PATH = re.compile(rf"^(?:{_NAME}|{_QUOTED}){_STEP}*(?:\.{_NAME}{_STEP}*)*$")


def error_shape_problem(answer):
    """None when `answer` (a non-2xx answer) is the one error shape {"error": {"code", "message", "details",
    "requestId"}} with a JSON content type; else what is wrong."""
    content_type = answer.headers.get("content-type", "")
    if not content_type.lower().startswith("application/json"):
        return f"content type {content_type or '(none)'} instead of application/json"
    document = answer.json()
    if not isinstance(document, dict) or set(document) != {"error"} or not isinstance(document["error"], dict):
        return f"not the error shape: {answer.body[:160]!r}"
    inner = document["error"]
    if set(inner) != ERROR_KEYS:
        return f"error has keys {sorted(inner)}, not {sorted(ERROR_KEYS)}"
    if not isinstance(inner["code"], str) or not inner["code"]:
        return "error.code is not a non-empty string"
    if not isinstance(inner["message"], str):
        return "error.message is not a string"
    if not isinstance(inner["details"], dict) or not all(isinstance(v, str) for v in inner["details"].values()):
        return "error.details is not an object of strings"
    if not isinstance(inner["requestId"], str) or not inner["requestId"]:
        return "error.requestId is missing or empty"
    if answer.status == 422:
        misspelt = [key for key in inner["details"] if not FIELD_PATH.match(key)]
        if misspelt:
            return f"details name fields in another spelling than items[0].field: {misspelt}"
    if answer.status == 400 and inner["code"] == "malformed_body" and set(inner["details"]) - {"body"}:
        return f"400 malformed_body names fields ({sorted(inner['details'])}): a well-formed body is 422"
    return None


# --- the OpenAPI document -------------------------------------------------------------------------------------

METHODS = ("get", "put", "post", "delete", "patch", "head", "options")


@dataclass
class Operation:
    method: str  # upper case
    path: str  # template, e.g. /api/meals/{id}
    statuses: set  # documented status codes as strings ("200", "4XX", "default")
    json_body: bool
    body_required: bool
    path_params: list
    query_params: list
    spec: dict

    @property
    def label(self):
        return f"{self.method} {self.path}"

    def documents(self, status):
        code = str(status)
        return code in self.statuses or f"{code[0]}XX" in self.statuses or "default" in self.statuses

    def regex(self):
        pattern = re.sub(r"\\\{[^}]+\\\}", "[^/]+", re.escape(self.path))
        return re.compile(f"^{pattern}$")


def load_operations(document):
    operations = []
    for path, item in document.get("paths", {}).items():
        shared = item.get("parameters", [])
        for method in METHODS:
            if method not in item:
                continue
            spec = item[method]
            parameters = [_resolve(document, p) for p in shared + spec.get("parameters", [])]
            body = _resolve(document, spec.get("requestBody", {})) if "requestBody" in spec else None
            content = (body or {}).get("content", {})
            operations.append(Operation(
                method=method.upper(), path=path, statuses={str(k) for k in spec.get("responses", {})},
                json_body=any(k.startswith("application/json") for k in content),
                body_required=bool((body or {}).get("required")),
                path_params=[p["name"] for p in parameters if p.get("in") == "path"],
                query_params=[p for p in parameters if p.get("in") == "query"],
                spec=spec))
    return operations


def _resolve(document, node):
    while isinstance(node, dict) and "$ref" in node:
        target = document
        for part in node["$ref"].lstrip("#/").split("/"):
            target = target[part.replace("~1", "/").replace("~0", "~")]
        node = target
    return node


def operation_for(operations, method, path):
    path = path.split("?")[0]
    for operation in operations:
        if operation.method == method and operation.regex().match(path):
            return operation
    return None


def load_document(location):
    if location.startswith("http"):
        answer = send("GET", urllib.parse.urlsplit(location).path, base=location)
        return json.loads(answer.body)
    with open(location) as handle:
        return json.load(handle)


# --- accounts -------------------------------------------------------------------------------------------------

PASSWORD = "fuzz-Passw0rd-long-enough"


def register(tag, password=PASSWORD, display_name="Fuzz"):
    """A new account through the gateway; its register answer (token, refreshToken, user...) plus email/password."""
    email = f"fuzz-{tag}-{int(time.time() * 1000)}-{os.getpid()}@example.com"
    for _ in range(20):
        answer = call("POST", "/api/auth/register", {"email": email, "password": password, "displayName": display_name})
        if answer.status == 201 or answer.status == 200:
            body = answer.json()
            body["email"], body["password"] = email, password
            return body
        if answer.status in (429, 503):
            time.sleep(float(answer.headers.get("retry-after", "1")))
            continue
        break
    raise SystemExit(f"could not register {email}: {answer.status} {answer.body[:300]!r}")


def login(email, password):
    answer = call("POST", "/api/auth/login", {"email": email, "password": password})
    if answer.status != 200:
        raise SystemExit(f"could not log in {email}: {answer.status} {answer.body[:300]!r}")
    return answer.json()


# --- crashed services -------------------------------------------------------------------------------------------
# A service that exits (a Swift trap, for one) makes the gateway answer 502/503 for everything routed to it, so one
# crash would hide the rest of the run. After every 5xx or missing answer the parts are probed directly; a part that
# no longer answers is recorded in $FUZZ_WORK/crashes.jsonl with the request that preceded it and the end of its
# log, and, when deploy/fuzz started the stack (FUZZ_RESTART_CRASHED=1), started again with `deploy/stack start`.

PARTS = {name: int(os.environ.get(f"NUTRITION_{name.upper()}_PORT", port))
         for name, port in (("auth", 8081), ("meals", 8082), ("metrics", 8083), ("trends", 8084), ("sharing", 8085), ("foods", 8086))}


def _live(port, path="/health/live"):
    answer = send("GET", path, timeout=3, base=f"http://127.0.0.1:{port}")
    return answer.status == 200


def down_parts():
    return [name for name, port in PARTS.items() if not _live(port)]


def _log_tail(part, lines=12):
    log_dir = os.environ.get("FUZZ_LOG_DIR", "")
    try:
        with open(os.path.join(log_dir, f"{part}.log"), "rb") as handle:
            handle.seek(0, os.SEEK_END)
            handle.seek(max(0, handle.tell() - 300000))
            text = handle.read().decode("utf-8", "replace")
    except OSError:
        return []
    text_lines = [line for line in text.splitlines() if line.strip()]
    # A Swift crash report: the frames of the crashed thread say where and why (the runtime failure message).
    marks = [i for i, line in enumerate(text_lines) if line.rstrip().endswith("crashed:")]
    if marks:
        frames = [line.strip() for line in text_lines[marks[-1]:marks[-1] + 40] if " at /" in line or "crashed:" in line]
        fatal = [line.strip() for line in text_lines if line.startswith("Fatal error") or "Swift runtime failure" in line]
        return (fatal[-1:] if fatal and fatal[-1] not in frames else []) + frames[:lines]
    return text_lines[-lines:]


def _wait_for_exit(part, seconds=60):
    """A crashing Swift process prints its backtrace for several seconds before it exits; wait for the whole report."""
    try:
        with open(os.path.join(os.environ.get("FUZZ_RUN_DIR", ""), f"{part}.pid")) as handle:
            pid = int(handle.read().strip())
    except (OSError, ValueError):
        return
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except OSError:
            return
        time.sleep(0.5)


def watch_crash(label, case, repro):
    """Problems (one per part that stopped answering) to attach to the case just answered with a 5xx or nothing."""
    import fcntl
    import subprocess
    work = os.environ.get("FUZZ_WORK")
    if not work:
        return []
    with open(os.path.join(work, "crashes.lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        down = down_parts()
        problems = []
        for part in down:
            _wait_for_exit(part)
            entry = {"part": part, "operation": label, "case": case, "repro": repro, "log": _log_tail(part),
                     "time": time.strftime("%H:%M:%S")}
            if os.environ.get("FUZZ_RESTART_CRASHED") == "1":
                subprocess.run([os.path.join(os.environ["FUZZ_REPO"], "deploy", "stack"), "start", part],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
                deadline = time.monotonic() + 180
                while time.monotonic() < deadline and not _live(PARTS[part], "/health/ready"):
                    time.sleep(0.5)
                entry["restarted"] = _live(PARTS[part], "/health/ready")
            with open(os.path.join(work, "crashes.jsonl"), "a") as handle:
                handle.write(json.dumps(entry) + "\n")
            problems.append(f"the {part} service stopped answering after this request (crashed); see crashes")
        return problems
