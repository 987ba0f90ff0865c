#!/usr/bin/env python3
"""Checks docs/CONFIGURATION.md against the code: every setting a process reads (a swift-configuration key `a.b.c`
in Services/, Shared/ or gateway/, read from the environment as `A_B_C`) must have a row in the reference's table,
and every variable the table names must be read by some process. Exit status 1 with both lists when they differ.

Keys are found where the code reads them: a dotted lower-case string literal on a line that uses the configuration
(`config`, `forKey:`, `currentKey:`, `previousKeys:`). Keys made at run time are the families below, named in the
table with a placeholder (`UPSTREAM_<NAME>_URL`).
  python3 deploy/lib/config-reference-check.py [REPO_ROOT]
"""
import pathlib
import re
import sys

ROOT = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).resolve().parents[2])
CODE_DIRS = ["Services", "Shared", "gateway"]
KEY = re.compile(r'"([a-z][a-z0-9]*(?:\.[a-z0-9]+)+)"')
READS = re.compile(r"\bconfig\b|forKey:|currentKey:|previousKeys:")
# Keys built at run time: (regex over the code, the table's name for the family).
FAMILIES = [
    (re.compile(r'ConfigKey\(\["upstream", name, "url"\]\)'), "UPSTREAM_<NAME>_URL"),
    (re.compile(r'ConfigKey\(\["upstream", name, "urls"\]\)'), "UPSTREAM_<NAME>_URLS"),
]
# Variables the code reads from the environment by name (tracing's switch), and those a library reads itself:
# swift-otel takes OpenTelemetry's standard `OTEL_*` variables (Shared/ServiceDefaults/TracingBootstrap.swift).
ENVIRONMENT = re.compile(r'environment\["([A-Z][A-Z0-9_]+)"\]')
LIBRARY_PREFIXES = ["OTEL_"]
SYSTEM = {"PATH", "HOME"}
# Settings built from a name the code passes to a helper: (regex with the name as group 1, key template).
NAMED = [(re.compile(r'authURL\(config, name: "([a-z]+)"'), "gateway.{}.url")]


def variable(key):
    return key.upper().replace(".", "_")


def code_variables():
    found = {}
    for folder in CODE_DIRS:
        for path in sorted((ROOT / folder).rglob("*.swift")):
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                code = line.split("//", 1)[0]
                where = f"{path.relative_to(ROOT)}:{number}"
                if READS.search(code):
                    for key in KEY.findall(code):
                        found.setdefault(variable(key), where)
                for name in ENVIRONMENT.findall(code):
                    if name not in SYSTEM:
                        found.setdefault(name, where)
                for pattern, name in FAMILIES:
                    if pattern.search(code):
                        found.setdefault(name, where)
                for pattern, template in NAMED:
                    for name in pattern.findall(code):
                        found.setdefault(variable(template.format(name)), where)
    return found


def reference_variables():
    names = {}
    text = (ROOT / "docs/CONFIGURATION.md").read_text(encoding="utf-8")
    for number, line in enumerate(text.splitlines(), 1):
        if not line.startswith("| `"):
            continue
        first = line.split("|")[1]
        for name in re.findall(r"`([A-Z][A-Z0-9_<>]*)`", first):
            names.setdefault(name, number)
    return names


def main():
    code = code_variables()
    reference = reference_variables()
    undocumented = sorted(set(code) - set(reference))
    unread = sorted(name for name in set(reference) - set(code) if not any(name.startswith(p) for p in LIBRARY_PREFIXES))
    for name in undocumented:
        print(f"    read in code but not in docs/CONFIGURATION.md: {name} ({code[name]})")
    for name in unread:
        print(f"    in docs/CONFIGURATION.md (line {reference[name]}) but read by no code: {name}")
    if undocumented or unread:
        return 1
    print(f"    ok: the {len(reference)} settings of docs/CONFIGURATION.md are the ones the code reads")
    return 0


if __name__ == "__main__":
    sys.exit(main())
