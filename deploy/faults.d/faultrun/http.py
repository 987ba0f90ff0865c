"""HTTP to the stack: one request per fresh connection, and what its outcome says about a write."""
import http.client
import json
import uuid

from .config import CLIENT_TIMEOUT, GATEWAY_PORT, now


class Answer:
    __slots__ = ("status", "body", "raw", "error", "t0", "t1", "rid", "headers", "sent")

    def __init__(self):
        self.sent = False
        self.status = None
        self.body = None
        self.raw = b""
        self.error = None
        self.t0 = self.t1 = None
        self.rid = None
        self.headers = {}

    @property
    def ok(self):
        return self.status is not None and 200 <= self.status < 300

    @property
    def code(self):
        if isinstance(self.body, dict) and isinstance(self.body.get("error"), dict):
            return self.body["error"].get("code")
        return None

    @property
    def outcome(self):
        """ack, refused or ambiguous (see the module's doc)."""
        if self.ok:
            return "ack"
        if not self.sent:
            return "refused"        # the connection was refused: nothing was sent
        if self.status is not None and 400 <= self.status < 500:
            return "refused"
        if self.status == 503 and self.code == "upstream_unavailable":
            return "refused"        # the gateway could not reach the service
        return "ambiguous"

    def describe(self):
        if self.status is None:
            return f"no answer ({self.error})"
        return f"{self.status} {self.code or ''}".strip()


def prepare(method, path, body=None, token=None, headers=None, rid=None):
    h = {"Connection": "close", "X-Request-Id": rid or ("faults-" + uuid.uuid4().hex[:20])}
    data = None
    if body is not None:
        data = json.dumps(body).encode()
        h["Content-Type"] = "application/json"
    if token:
        h["Authorization"] = "Bearer " + token
    if headers:
        h.update(headers)
    return method, path, data, h


def exchange(conn, prepared, answer):
    method, path, data, h = prepared
    answer.rid = h["X-Request-Id"]
    try:
        if answer.t0 is None:
            answer.t0 = now()
        if conn.sock is None:
            conn.connect()
        answer.sent = True
        conn.request(method, path, body=data, headers=h)
        response = conn.getresponse()
        answer.raw = response.read()
        answer.status = response.status
        answer.headers = {k.lower(): v for k, v in response.getheaders()}
        if answer.raw and "json" in answer.headers.get("content-type", ""):
            try:
                answer.body = json.loads(answer.raw)
            except ValueError:
                pass
    except Exception as error:  # noqa: BLE001 - every transport failure is an outcome to record
        answer.error = f"{type(error).__name__}: {error}"
    finally:
        answer.t1 = now()
        conn.close()
    return answer


def call(method, path, body=None, token=None, port=GATEWAY_PORT, timeout=CLIENT_TIMEOUT, headers=None, rid=None):
    """One request on a fresh connection (so a connection the server closed while idle never makes a write ambiguous)."""
    answer = Answer()
    answer.t0 = now()
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    return exchange(conn, prepare(method, path, body, token, headers, rid), answer)


def port_open(port, timeout=0.3):
    import socket
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=timeout):
            return True
    except OSError:
        return False
