"""schemathesis hooks of deploy/fuzz (loaded through SCHEMATHESIS_HOOKS): after an answer of 502, 503 or 504 the
services are probed directly, and one that stopped answering is recorded with the request that preceded it (and
started again when deploy/fuzz started the stack); see fuzzlib.watch_crash."""
import os
import sys

import schemathesis

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fuzzlib  # noqa: E402


@schemathesis.hook
def after_call(context, case, response):
    if response.status_code in (502, 503, 504):
        try:
            repro = case.as_curl_command()
        except Exception:  # noqa: BLE001  the record matters more than its curl line
            repro = f"{case.method} {case.formatted_path}"
        fuzzlib.watch_crash(f"{case.method} {case.path}", "schemathesis", repro)
