#!/usr/bin/env python3
"""The bad-input run's table.
  report.py WORK_DIR

Reads WORK_DIR/openapi.json, schemathesis' HAR and JUnit reports (WORK_DIR/schemathesis/) and the targeted
cases (WORK_DIR/targeted.json). Prints one row per operation: cases sent by schemathesis and by the targeted
cases, the statuses seen (status x count), and the failures (crashed services from WORK_DIR/crashes.jsonl count
too); then what a rule of deploy/fuzz.d/hooks.py explained (by rule, with its reason: refusals of schema-valid requests
for what JSON Schema cannot state, checked on each request; reads of what is shared by design), and every failure
with a command that repeats it.
Exits 1 when anything failed."""
import collections
import json
import os
import re
import sys
import urllib.parse
import xml.etree.ElementTree as ElementTree

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fuzzlib  # noqa: E402


def main():
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    work = sys.argv[1]
    operations = fuzzlib.load_operations(json.load(open(os.path.join(work, "openapi.json"))))
    order = [o.label for o in operations]
    sent = collections.defaultdict(lambda: [0, 0])  # label -> [schemathesis, targeted]
    statuses = collections.defaultdict(collections.Counter)
    failures = collections.Counter()
    details = []

    har = os.path.join(work, "schemathesis", "report.har")
    if os.path.exists(har):
        for entry in json.load(open(har)).get("log", {}).get("entries", []):
            method = entry["request"]["method"].upper()
            path = urllib.parse.urlsplit(entry["request"]["url"]).path
            operation = fuzzlib.operation_for(operations, method, path)
            label = operation.label if operation else f"{method} on documented paths (method not in the document)"
            sent[label][0] += 1
            statuses[label][entry["response"]["status"]] += 1

    junit = os.path.join(work, "schemathesis", "junit.xml")
    if os.path.exists(junit):
        for case in ElementTree.parse(junit).getroot().iter("testcase"):
            label = case.get("name", "?")
            for problem in list(case.findall("failure")) + list(case.findall("error")):
                text = (problem.text or problem.get("message") or "").strip()
                blocks = split_failures(text)
                failures[label] += len(blocks)
                for block in blocks:
                    details.append((label, "schemathesis", block))

    targeted = os.path.join(work, "targeted.json")
    if os.path.exists(targeted):
        grouped = collections.OrderedDict()
        for result in json.load(open(targeted))["results"]:
            label = result["operation"]
            if result["status"] is not None:
                sent[label][1] += 1
                statuses[label][result["status"]] += 1
            if result["problems"]:
                failures[label] += 1
                for problem in result["problems"]:
                    key = (label, normalise(problem))
                    grouped.setdefault(key, []).append(result)
        for (label, problem), cases in grouped.items():
            first = cases[0]
            names = ", ".join(c["case"] for c in cases[:6]) + (f" and {len(cases) - 6} more" if len(cases) > 6 else "")
            text = f"{problem}\n  cases ({len(cases)}): {names}\n  first: {first['case']} -> {first['status']}"
            if first.get("code"):
                text += f" {first['code']}"
            if first.get("repro"):
                text += f"\n  repeat: {first['repro']}"
            details.append((label, "targeted", text))

    crashes = os.path.join(work, "crashes.jsonl")
    if os.path.exists(crashes):
        # One finding per place in the code: the failing frame and the handler that called it.
        by_place = collections.OrderedDict()
        for line in open(crashes):
            crash = json.loads(line)
            failures[crash["operation"]] += 1
            frames = [f for f in crash.get("log", []) if re.search(r"(Services|Shared|gateway)/\S+\.swift:\d+", f)]
            where = [re.search(r"in \w+ at (\S+)$", f) for f in frames]
            place = next((m.group(1).split("/work/")[-1].split("/", 1)[-1] for m in where if m), "(no backtrace)")
            handler = next((m.group(1).split("/")[-1] for m in where if m and "Controller" in m.group(1)), "")
            failure = next((f.split("Swift runtime failure: ")[-1].split(" in ")[0] for f in crash.get("log", [])
                            if "runtime failure" in f or f.startswith("Fatal error")), "")
            by_place.setdefault((crash["part"], place, failure), []).append((crash, handler))
        for (part, place, failure), crashes_here in by_place.items():
            handlers = collections.OrderedDict()
            for crash, handler in crashes_here:
                handlers.setdefault(handler, crash)
            text = f"CRASH x{len(crashes_here)}: the {part} service exited ({failure or 'no message'}) at {place}"
            for handler, crash in handlers.items():
                text += (f"\n  via {handler or '?'}, first after {crash['operation']} ({crash['case']}) at {crash['time']}"
                         + (f"\n    repeat: {crash['repro']}" if crash.get("repro") else ""))
            details.insert(0, (crashes_here[0][0]["operation"], "crash", text))

    labels = order + sorted(set(sent) - set(order) | set(failures) - set(order))
    width = max(len(label) for label in labels) + 2
    header = f"{'operation':<{width}}{'schemathesis':>13}{'targeted':>10}  {'failures':>8}  statuses seen (status x count)"
    print(header)
    print("-" * len(header))
    totals = [0, 0, 0]
    for label in labels:
        seen = " ".join(f"{status}x{count}" for status, count in sorted(statuses[label].items()))
        print(f"{label:<{width}}{sent[label][0]:>13}{sent[label][1]:>10}  {failures[label]:>8}  {seen or '-'}")
        totals[0] += sent[label][0]
        totals[1] += sent[label][1]
        totals[2] += failures[label]
    print("-" * len(header))
    print(f"{'total':<{width}}{totals[0]:>13}{totals[1]:>10}  {totals[2]:>8}")
    explained = os.path.join(work, "explained.jsonl")
    if os.path.exists(explained):
        by_rule = collections.OrderedDict()
        for line in open(explained):
            entry = json.loads(line)
            by_rule.setdefault(entry["rule"], [entry["reason"], collections.Counter()])[1][entry["operation"]] += 1
        print("\nExplained, not failures (deploy/fuzz.d/hooks.py): schema-valid requests refused for what JSON Schema "
              "cannot state, each rule checked on the request; reads of what is shared by design:")
        for rule, (reason, operations) in by_rule.items():
            print(f"  {rule}: {sum(operations.values())} ({', '.join(f'{o} x{n}' for o, n in operations.most_common())})")
            print(f"    {reason}")
    if details:
        print(f"\nFailures ({totals[2]} failed cases; grouped):")
        for label, source, text in details:
            print(f"\n[{source}] {label}\n  " + text.replace("\n", "\n  "))
    sys.exit(1 if totals[2] else 0)


def split_failures(text):
    """schemathesis' failure text for one operation: numbered blocks ("1. ...", "2. ...") each with its curl line."""
    blocks = re.split(r"\n(?=\d+\. Test Case ID)", "\n" + text)
    blocks = [b.strip() for b in blocks if b.strip()]
    return blocks or [text]


def normalise(problem):
    """Problems that differ only in the bytes quoted are one finding."""
    problem = re.sub(r": b['\"].*$", "", problem)
    problem = re.sub(r"accepted '.*?' in", "accepted an injection in", problem)
    return problem


if __name__ == "__main__":
    main()
