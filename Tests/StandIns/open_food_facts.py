#!/usr/bin/env python3
"""A stand-in for Open Food Facts' product API (v2) in the foods tests: fixtures, OFF's checks, and faults on request.

GET /api/v2/product/<code> (or <code>.json), optional ?fields=a,b (the answer's "product" keeps only those top-level
fields; unknown ones are just absent). The code is normalised as OFF does (strip leading zeros, pad to 13 digits, back
to 8 if that leaves 00000 + 8 digits): a 12-digit UPC-A is looked up with a leading 0, a GTIN-14 with leading zeros
as 13 digits, an EAN-8 stays 8. Check digits are not checked (OFF does not either). Answers, like OFF:
  found                  200 {"code", "product": {...}, "status": 1, "status_verbose": "product found"}
  not found              404 {"code", "status": 0, "status_verbose": "product not found"}
  not digits, all zeros, fewer than 4 or more than 24 significant digits
                         200 {"code", "status": 0, "status_verbose": "no code or invalid code"}
Like OFF's rules (not its enforcement): a missing User-Agent, a generic library one (curl/, python-requests,
Go-http-client, Java/, okhttp, AsyncHTTPClient, a browser's Mozilla/...) or one not shaped `AppName/Version (contact)`
gets 403 text/plain; more than --per-minute product reads from one client address in 60 s get nginx's 429 HTML page
with Retry-After: 60.

Fixtures: --products holds one file per product, <code>.json, the whole body served with 200 for that code.
  code            odd shape
  4260123450014   complete yoghurt per 100 g: kcal and kJ, every nutrient, _serving too, serving 150 g, nova 1,
                  nutriscore a, allergens en:milk, en:non-vegan + en:vegetarian
  0850012345008   UPC-A 850012345008 (ask with 12 digits): complete cereal, several nutriments and
                  serving_quantity ("40") and product_quantity given as strings, nova 4, nutriscore c
  40170725        EAN-8 (also as 00000040170725): dark chocolate, per 100 g only, vegan
  4260123450021   kJ only: energy_100g and energy-kj_100g, no kcal anywhere
  4260123450038   per serving only: nutrition_data_per "serving", only _serving nutriments, serving 30 g
  4260123450045   salt without sodium; en:vegan-status-unknown, en:vegetarian-status-unknown
  4260123450052   energy and fat only (no carbohydrates, no proteins); nutriscore_grade "unknown", no nova_group,
                  ingredients_analysis_tags []
  4260123450069   no nutriments key and no product_name: only generic_name and brands
  4260123450076   drink: quantity and serving_size "330 ml", serving_quantity_unit "ml", _100g keys with
                  nutrition_data_per "100g", en:beverages, vegan, nova 4, nutriscore e
  4260123450083   200 with {"status": 0, "status_verbose": "product not found"} and no product (as some mirrors)
  4260123450090   product_name of 398 characters, brands "Gut Lindenhof, ..." (5 comma-separated brands)
  5000000000005   (no fixture) a valid code that answers 404
  00000000, abc   200 "no code or invalid code"

Test controls (no real OFF has them), all under /_standin/:
  POST /_standin/behaviour {"mode", "delaySeconds"?, "codes"?} -> 204. Modes: normal; down (close without an answer);
       slow (sleep delaySeconds, default 5, then answer normally); status429 (429, Retry-After: 30); status500 (an HTML
       500 page); garbage (200 application/json, not JSON); html (200 text/html page); truncated (the JSON body cut in
       half under the full Content-Length, then close). "codes": only those codes are affected. Applied after the
       User-Agent and rate checks.
  POST /_standin/reset -> 204: normal mode, request log emptied, rate counters reset, products back to the fixtures.
  GET /_standin/requests -> every product request seen, oldest first: {"path", "code" (normalised), "userAgent",
       "fields", "accept", "at" (epoch seconds), "answered": status, "dropped", or null while still being answered}.
  POST /_standin/products with a full OFF body adds or replaces that product (204); DELETE /_standin/products/<code>.

Once listening, it writes its port to --ready-file. SIGTERM stops it.
"""
import argparse
import json
import os
import re
import signal
import sys
import threading
import time
from collections import deque
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, unquote, urlsplit

PRODUCT_PATH = re.compile(r"/api/v2/product/(?P<code>[^/]+?)(?:\.json)?")
STANDIN_PRODUCT_PATH = re.compile(r"/_standin/products/(?P<code>[^/]+)")
MODES = {"normal", "down", "slow", "status429", "status500", "garbage", "html", "truncated"}
GENERIC_AGENTS = ("curl/", "wget/", "python-requests", "python-urllib", "python-httpx", "aiohttp", "go-http-client",
                  "java/", "okhttp", "asynchttpclient", "axios/", "node-fetch", "undici", "postmanruntime",
                  "libwww-perl", "mozilla/")
AGENT_SHAPE = re.compile(r"[A-Za-z][\w.+-]*/[\w.+-]+ \([^()]*[^\s()][^()]*\)")
OFF_UNAVAILABLE_PAGE = ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
                        "<title>Page temporarily unavailable - Open Food Facts</title></head>\n<body><h1>Page "
                        "temporarily unavailable</h1><p>We are sorry, this page is temporarily unavailable. Please "
                        "try again in a few minutes.</p></body></html>\n")


def arguments():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--port", type=int, default=0, help="0: any free port")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--products", default=os.path.join(os.path.dirname(__file__), "open_food_facts", "products"),
                        help="directory of <code>.json fixtures")
    parser.add_argument("--per-minute", type=int, default=100, help="product reads per client per 60 s")
    parser.add_argument("--ready-file", required=True)
    return parser.parse_args()


def write_atomically(path, text):
    """Writes text to path in one step, so a reader never sees half of it."""
    temporary = path + ".partial"
    with open(temporary, "w", encoding="utf-8") as file:
        file.write(text)
    os.replace(temporary, path)


def normalize_code(raw):
    """OFF's normalisation (ProductOpener normalize_code_zeroes), or None for a code OFF calls invalid."""
    if not re.fullmatch(r"[0-9]+", raw):
        return None
    significant = raw.lstrip("0")
    if not 4 <= len(significant) <= 24:
        return None
    code = significant.zfill(13)
    return code[5:] if len(code) == 13 and code.startswith("00000") else code


def agent_problem(agent):
    """Why OFF would not accept this User-Agent, or None when it is `AppName/Version (contact)`."""
    if not agent or not agent.strip():
        return "no User-Agent"
    if agent.lower().startswith(GENERIC_AGENTS):
        return f"a generic library User-Agent ({agent})"
    if not AGENT_SHAPE.match(agent):
        return f"a User-Agent not shaped AppName/Version (contact) ({agent})"
    return None


def nginx_page(status, reason):
    """The HTML page nginx answers on its own for an error status."""
    return (f"<html>\r\n<head><title>{status} {reason}</title></head>\r\n<body>\r\n<center><h1>{status} {reason}</h1>"
            f"</center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n")


def load_products(directory):
    """Every <code>.json fixture in directory, keyed by normalised code; a broken fixture stops the start."""
    products = {}
    for name in sorted(os.listdir(directory)):
        if name.endswith(".json"):
            with open(os.path.join(directory, name), encoding="utf-8") as file:
                body = json.load(file)
            products[normalize_code(name[:-5]) or name[:-5]] = body
    return products


class StandIn:
    """What every request shares: products, behaviour, request log and rate windows, under one lock."""

    def __init__(self, directory, per_minute):
        self.lock = threading.Lock()
        self.directory = directory
        self.per_minute = per_minute
        self.reset()

    def reset(self):
        """Back to the start: fixtures only, normal mode, empty log, fresh rate windows."""
        products = load_products(self.directory)
        with self.lock:
            self.products = products
            self.behaviour = {"mode": "normal", "delaySeconds": 5.0, "codes": None}
            self.requests = []
            self.windows = {}

    def record(self, entry):
        """Appends a product request to the log; returns the entry to fill in once answered."""
        with self.lock:
            self.requests.append(entry)
        return entry

    def answered(self, entry, outcome):
        """Marks a logged request answered with a status or "dropped"."""
        with self.lock:
            entry["answered"] = outcome

    def log(self):
        """A copy of the request log, oldest first."""
        with self.lock:
            return [dict(entry) for entry in self.requests]

    def admit(self, client):
        """True when client has made fewer than per_minute admitted product reads in the last 60 seconds."""
        now = time.monotonic()
        with self.lock:
            window = self.windows.setdefault(client, deque())
            while window and now - window[0] >= 60:
                window.popleft()
            if len(window) >= self.per_minute:
                return False
            window.append(now)
            return True

    def set_behaviour(self, request):
        """Validates and installs a behaviour request; returns an error text or None."""
        mode, delay, codes = request.get("mode"), request.get("delaySeconds", 5), request.get("codes")
        if mode not in MODES:
            return f"mode must be one of {sorted(MODES)}"
        if not isinstance(delay, (int, float)) or isinstance(delay, bool) or delay < 0:
            return "delaySeconds must be a number >= 0"
        if codes is not None and not (isinstance(codes, list) and all(isinstance(c, str) for c in codes)):
            return "codes must be a list of strings"
        normalised = None if codes is None else {normalize_code(code) or code for code in codes}
        with self.lock:
            self.behaviour = {"mode": mode, "delaySeconds": float(delay), "codes": normalised}
        return None

    def behaviour_for(self, code):
        """The behaviour that applies to a request for code."""
        with self.lock:
            behaviour = self.behaviour
        if behaviour["codes"] is not None and code not in behaviour["codes"]:
            return {"mode": "normal", "delaySeconds": 0.0, "codes": None}
        return behaviour

    def put_product(self, body):
        """Adds or replaces a product from a full OFF body; returns its code or None when the body has none."""
        product = body.get("product") if isinstance(body.get("product"), dict) else {}
        code = normalize_code(str(body.get("code") or product.get("code") or ""))
        if code is not None:
            with self.lock:
                self.products[code] = body
        return code

    def delete_product(self, raw):
        """Removes a product; True when there was one."""
        with self.lock:
            return self.products.pop(normalize_code(raw) or raw, None) is not None

    def lookup(self, raw, code, fields):
        """OFF's status and body for a product read, with fields applied."""
        if code is None:
            return 200, {"code": raw, "status": 0, "status_verbose": "no code or invalid code"}
        with self.lock:
            body = self.products.get(code)
        if body is None:
            return 404, {"code": code, "status": 0, "status_verbose": "product not found"}
        wanted = [name.strip() for name in (fields or "").split(",") if name.strip()]
        if isinstance(body.get("product"), dict) and wanted and "all" not in wanted:
            body = dict(body, product={name: body["product"][name] for name in wanted if name in body["product"]})
        return 200, body


class Handler(BaseHTTPRequestHandler):
    """OFF's product route and the /_standin/ controls."""

    protocol_version = "HTTP/1.1"
    server_version = "nginx"
    sys_version = ""

    def log_message(self, format, *args):
        pass

    def do_GET(self):
        url = urlsplit(self.path)
        if url.path == "/_standin/requests":
            return self.send(200, "application/json", json.dumps(self.server.standin.log()))
        match = PRODUCT_PATH.fullmatch(url.path)
        if match is None:
            return self.send(404, "text/html", nginx_page(404, "Not Found"))
        self.read_product(url, unquote(match["code"]))

    def do_POST(self):
        path, standin = urlsplit(self.path).path, self.server.standin
        try:
            length = int(self.headers.get("Content-Length") or 0)
            body = json.loads(self.rfile.read(length) or b"{}")
        except ValueError:
            return self.send(400, "text/plain", "body is not JSON\n")
        if not isinstance(body, dict):
            return self.send(400, "text/plain", "body must be a JSON object\n")
        if path == "/_standin/reset":
            standin.reset()
            return self.send(204)
        if path == "/_standin/behaviour":
            error = standin.set_behaviour(body)
            return self.send(400, "text/plain", error + "\n") if error else self.send(204)
        if path == "/_standin/products":
            code = standin.put_product(body)
            return self.send(204) if code else self.send(400, "text/plain", "body has no valid code\n")
        self.send(404, "text/html", nginx_page(404, "Not Found"))

    def do_DELETE(self):
        match = STANDIN_PRODUCT_PATH.fullmatch(urlsplit(self.path).path)
        if match and self.server.standin.delete_product(unquote(match["code"])):
            return self.send(204)
        self.send(404, "text/plain", "no such product\n")

    def read_product(self, url, raw):
        """Logs a product read, answers it, and records how it was answered."""
        standin, code = self.server.standin, normalize_code(raw)
        fields = parse_qs(url.query).get("fields", [None])[0]
        entry = standin.record({"path": url.path, "code": code or raw, "userAgent": self.headers.get("User-Agent"),
                                "fields": fields, "accept": self.headers.get("Accept"), "at": time.time(),
                                "answered": None})
        try:
            outcome = self.answer_product(raw, code, fields)
        except (BrokenPipeError, ConnectionResetError):
            outcome = "dropped"
        standin.answered(entry, outcome)

    def answer_product(self, raw, code, fields):
        """OFF's checks, then the current behaviour, then the product; returns the status sent or "dropped"."""
        standin = self.server.standin
        problem = agent_problem(self.headers.get("User-Agent"))
        if problem:
            return self.send(403, "text/plain", f"403 Forbidden: {problem}. Open Food Facts asks every client for "
                                                "a User-Agent like AppName/Version (ContactEmail).\n")
        if not standin.admit(self.client_address[0]):
            return self.send(429, "text/html", nginx_page(429, "Too Many Requests"), {"Retry-After": "60"})
        behaviour = standin.behaviour_for(code or raw)
        mode = behaviour["mode"]
        if mode == "down":
            self.close_connection = True
            return "dropped"
        if mode == "slow":
            time.sleep(behaviour["delaySeconds"])
        if mode == "status429":
            return self.send(429, "text/html", nginx_page(429, "Too Many Requests"), {"Retry-After": "30"})
        if mode == "status500":
            return self.send(500, "text/html", nginx_page(500, "Internal Server Error"))
        if mode == "garbage":
            return self.send(200, "application/json", b"<<OFF>> status=1; product=\xff\xfe {\"code\": ")
        if mode == "html":
            return self.send(200, "text/html", OFF_UNAVAILABLE_PAGE)
        status, body = standin.lookup(raw, code, fields)
        return self.send(status, "application/json", json.dumps(body, ensure_ascii=False),
                         truncate=mode == "truncated")

    def send(self, status, content_type=None, body=b"", headers=None, truncate=False):
        """Sends a whole answer (or, with truncate, its first half under the full Content-Length) and returns status."""
        data = body.encode("utf-8") if isinstance(body, str) else body
        self.send_response(status)
        if content_type:
            self.send_header("Content-Type", content_type + "; charset=utf-8")
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        if status != 204:
            self.send_header("Content-Length", str(len(data)))
        if truncate:
            self.send_header("Connection", "close")
            self.close_connection = True
        self.end_headers()
        self.wfile.write(data[:len(data) // 2] if truncate else data)
        return status


def main():
    options = arguments()
    server = ThreadingHTTPServer((options.host, options.port), Handler)
    server.daemon_threads = True
    server.standin = StandIn(options.products, options.per_minute)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    write_atomically(options.ready_file, str(server.server_address[1]))
    try:
        server.serve_forever()
    finally:
        server.server_close()


if __name__ == "__main__":
    # A child inherits its parent thread's signal mask; the Swift test runner's threads block SIGTERM, so unblock it.
    signal.pthread_sigmask(signal.SIG_SETMASK, [])
    main()
