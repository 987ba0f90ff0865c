"""Decodes an OTLP ExportTraceServiceRequest with opentelemetry-proto (PyPI), the second implementation the gateway's
own encoding (gateway/Tracing/OTLPTraceEncoding.swift) is checked against, and prints what it holds as plain JSON
(64-bit numbers as strings, so no reader rounds them).

    python3 otlp_decode.py protobuf|json FILE

protobuf: the binary encoding, read with the generated message's parser.
json: OTLP/JSON, read with protobuf's JSON parser after the one deviation OTLP/JSON makes from protobuf's mapping is
undone (trace and span ids are hex there, base64 in protobuf's mapping); unknown fields are errors.
Exits 1 with the decoder's message when the bytes are not a valid request.
"""
import base64
import json
import sys

from google.protobuf import json_format
from opentelemetry.proto.collector.trace.v1 import trace_service_pb2


def ids_to_base64(document):
    for resource_spans in document.get("resourceSpans", []):
        for scope_spans in resource_spans.get("scopeSpans", []):
            for span in scope_spans.get("spans", []):
                for key in ("traceId", "spanId", "parentSpanId"):
                    if key in span:
                        span[key] = base64.b64encode(bytes.fromhex(span[key])).decode()
    return document


def value_text(any_value):
    kind = any_value.WhichOneof("value")
    if kind == "string_value":
        return {"string": any_value.string_value}
    if kind == "int_value":
        return {"int": str(any_value.int_value)}
    return {kind: str(getattr(any_value, kind))}


def plain(request):
    out = []
    for resource_spans in request.resource_spans:
        resource = {kv.key: value_text(kv.value) for kv in resource_spans.resource.attributes}
        for scope_spans in resource_spans.scope_spans:
            for span in scope_spans.spans:
                out.append({
                    "resource": resource,
                    "scope": scope_spans.scope.name,
                    "traceId": span.trace_id.hex(),
                    "spanId": span.span_id.hex(),
                    "parentSpanId": span.parent_span_id.hex(),
                    "traceState": span.trace_state,
                    "name": span.name,
                    "kind": span.kind,
                    "start": str(span.start_time_unix_nano),
                    "end": str(span.end_time_unix_nano),
                    "attributes": [[kv.key, value_text(kv.value)] for kv in span.attributes],
                    "status": span.status.code,
                })
    return out


def main():
    encoding, path = sys.argv[1], sys.argv[2]
    data = open(path, "rb").read()
    request = trace_service_pb2.ExportTraceServiceRequest()
    try:
        if encoding == "protobuf":
            request.ParseFromString(data)
        else:
            json_format.ParseDict(ids_to_base64(json.loads(data)), request, ignore_unknown_fields=False)
    except Exception as error:  # the decoder's own message is the finding
        print(f"not a valid ExportTraceServiceRequest: {error}", file=sys.stderr)
        sys.exit(1)
    print(json.dumps(plain(request)))


if __name__ == "__main__":
    main()
