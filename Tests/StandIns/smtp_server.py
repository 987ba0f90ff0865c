#!/usr/bin/env python3
"""The receiving SMTP server of the mail tests: aiosmtpd with implicit TLS, STARTTLS or plain, and AUTH on request.

Every message it accepts becomes a JSON file in --out: the envelope, whether the session was under TLS, who signed
in, the bytes as received (after SMTP's dot-unstuffing) and the headers and body as Python's email package decodes
them, with any defect it found. Every AUTH attempt is appended to --out/auth.jsonl (never the password). Once
listening, it writes its port to --ready-file. SIGTERM stops it.

Needs aiosmtpd on PYTHONPATH: deploy/setup.sh installs it under .local/tools and deploy/test exports the path as
NUTRITION_AIOSMTPD_PATH.
"""
import argparse
import asyncio
import itertools
import json
import os
import signal
import ssl
from email import policy
from email.parser import BytesParser

from aiosmtpd.smtp import SMTP, AuthResult


def arguments():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--port", type=int, default=0, help="0: any free port")
    parser.add_argument("--tls", choices=["implicit", "starttls", "none"], default="none")
    parser.add_argument("--cert", help="server certificate chain (PEM), for implicit and starttls")
    parser.add_argument("--key", help="its private key (PEM)")
    parser.add_argument("--user", help="require AUTH with this user name")
    parser.add_argument("--password", help="and this password")
    parser.add_argument("--mechanisms", default="PLAIN,LOGIN", help="AUTH mechanisms offered, comma-separated")
    parser.add_argument("--out", required=True, help="directory for received messages")
    parser.add_argument("--ready-file", required=True)
    return parser.parse_args()


def write_atomically(path, text):
    temporary = path + ".partial"
    with open(temporary, "w", encoding="utf-8") as file:
        file.write(text)
    os.replace(temporary, path)


def under_tls(server):
    return server.transport is not None and server.transport.get_extra_info("ssl_object") is not None


class Recorder:
    """Writes each accepted message to the output directory and checks credentials."""

    def __init__(self, out, user, password):
        self.out = out
        self.user = user
        self.password = password
        self.numbers = itertools.count(1)

    def authenticate(self, server, session, envelope, mechanism, auth_data):
        login = auth_data.login.decode("utf-8", "replace")
        accepted = self.user is not None and login == self.user and auth_data.password.decode("utf-8", "replace") == self.password
        attempt = {"mechanism": mechanism, "login": login, "tls": under_tls(server), "accepted": accepted}
        with open(os.path.join(self.out, "auth.jsonl"), "a", encoding="utf-8") as file:
            file.write(json.dumps(attempt) + "\n")
        return AuthResult(success=accepted, handled=False, auth_data=login if accepted else None)

    async def handle_DATA(self, server, session, envelope):
        raw = envelope.original_content
        message = BytesParser(policy=policy.default).parsebytes(raw)
        headers, defects = {}, [repr(defect) for defect in message.defects]
        for name, value in message.items():
            headers.setdefault(name.lower(), []).append(str(value))
            defects += [f"{name}: {defect!r}" for defect in getattr(value, "defects", ())]
        date = message["date"]
        record = {
            "mailFrom": envelope.mail_from,
            "recipients": envelope.rcpt_tos,
            "mailOptions": envelope.mail_options,
            "tls": under_tls(server),
            "login": session.auth_data if session.authenticated else None,
            "raw": raw.decode("utf-8", "replace"),
            "headers": headers,
            "dateEpoch": date.datetime.timestamp() if date is not None and date.datetime is not None else None,
            "body": message.get_content().replace("\r\n", "\n"),
            "defects": defects,
        }
        write_atomically(os.path.join(self.out, f"{next(self.numbers):04d}.json"), json.dumps(record, indent=1))
        return "250 2.0.0 OK"


async def serve(options):
    context = None
    if options.tls != "none":
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.load_cert_chain(options.cert, options.key)
    recorder = Recorder(options.out, options.user, options.password)
    offered = {mechanism.strip().upper() for mechanism in options.mechanisms.split(",")}
    loop = asyncio.get_running_loop()

    def session():
        return SMTP(
            recorder, hostname="smtp.test", loop=loop,
            tls_context=context if options.tls == "starttls" else None,
            require_starttls=options.tls == "starttls",
            authenticator=recorder.authenticate,
            auth_required=options.user is not None,
            # aiosmtpd counts only STARTTLS as TLS; under implicit TLS (and on a plain test relay) AUTH is offered as is.
            auth_require_tls=options.tls == "starttls",
            auth_exclude_mechanism=[m for m in ("PLAIN", "LOGIN") if m not in offered])

    server = await loop.create_server(
        session, host="127.0.0.1", port=options.port, ssl=context if options.tls == "implicit" else None)
    port = server.sockets[0].getsockname()[1]
    write_atomically(options.ready_file, str(port))
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    # A child inherits its parent thread's signal mask; the Swift test runner's threads block SIGTERM, so unblock it.
    signal.pthread_sigmask(signal.SIG_SETMASK, [])
    options = arguments()
    os.makedirs(options.out, exist_ok=True)
    asyncio.run(serve(options))
