#!/usr/bin/env python3
"""Fails when the OpenAPI document, docs/ or the README describe ids as upper case: the server writes every UUID in
lower case (RFC 9562) and accepts any case on input, and a client written to a document that says otherwise keys its
rows wrongly. Exit status 1 with each finding (file, line or JSON path, the words).

What counts as describing ids as upper case, clause by clause (a clause ends at `.`, `;`, `!`, `?` or a blank line):
  - an upper-case phrase ("upper case", "upper-case", "uppercase(d)", "capital letters", "capitalised", "all caps")
    in a clause about ids (the words id(s), UUID(s), GUID(s), identifier(s), a camelCase `...Id`, or, in the OpenAPI
    document, the description of a property or parameter that is an id: named `id`/`...Id`/`...Ids` or `format: uuid`);
  - a UUID literal whose letters are all upper case (an example that shows ids so);
  - in the OpenAPI document, a `pattern` that admits only upper-case hex digits (`A-F` without `a-f`).
What does not: a phrase negated or past within a few words around it ("not", "never", "no", "fail on", "refused",
"accepted", "any case", "before", "were", "carried", "wrote"), so "the checks fail on an upper-case UUID", "ids are
accepted in any case (upper case too)" and "events written before 2026-11 carried upper-case ids" pass, while "spell
them in upper case" and "Upper-case in JSON bodies" fail.
  python3 deploy/lib/id-case-check.py [REPO_ROOT]     the check
  python3 deploy/lib/id-case-check.py --self-test    the check on samples that must fail and samples that must pass
"""
import json
import pathlib
import re
import sys

UPPER = re.compile(
    r"\b(?:upper[\s-]*case[ds]?|uppercased?|capital\s+letters|capitali[sz]ed|in\s+capitals|all[\s-]+caps)\b", re.I)
ID_WORD = re.compile(r"\b(?:ids?|uuids?|guids?|identifiers?)\b", re.I)
ID_CAMEL = re.compile(r"\b[a-z][A-Za-z0-9]*I[dD]s?\b")
# Negation, acceptance of input, and the past, in the words just before or after the phrase.
EXCUSE_BEFORE = re.compile(
    r"\b(?:not|never|no|nor|fails?|failed|refuses?|refused|rejects?|rejected|accepts?|accepted|before|until|formerly"
    r"|used\s+to|were|was|carried|wrote)\b|any\s+case|case[\s-]*insensitiv", re.I)
EXCUSE_AFTER = re.compile(
    r"\b(?:accepted|refused|rejected|were|was|before|no\s+longer|fails?|failed)\b|any\s+case", re.I)
WINDOW = 48  # characters either side of the phrase that may excuse it
UUID_LITERAL = re.compile(r"\b[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}\b")
CLAUSE_END = re.compile(r"[.;!?](?=\s|$)|\n\s*\n")
ID_PROPERTY = re.compile(r"^(?:id|[a-z][A-Za-z0-9]*Ids?)$")


def clauses(text):
    """(start offset, clause) for each clause of `text`."""
    start = 0
    for end in CLAUSE_END.finditer(text):
        yield start, text[start:end.end()]
        start = end.end()
    if start < len(text):
        yield start, text[start:]


def findings_in(text, about_id=False):
    """(offset, words) for each place `text` describes ids as upper case; `about_id` when the text is an id's own."""
    found = []
    for offset, clause in clauses(text):
        clause_about_id = about_id or ID_WORD.search(clause) or ID_CAMEL.search(clause)
        for match in UPPER.finditer(clause):
            if not clause_about_id:
                continue
            before = clause[max(0, match.start() - WINDOW):match.start()]
            after = clause[match.end():match.end() + WINDOW]
            if EXCUSE_BEFORE.search(before) or EXCUSE_AFTER.search(after):
                continue
            found.append((offset + match.start(), " ".join(clause.split())))
        for match in UUID_LITERAL.finditer(clause):
            literal = match.group(0)
            if re.search(r"[A-F]", literal) and not re.search(r"[a-f]", literal):
                if re.search(r"any\s+case|accept", clause, re.I):
                    continue
                found.append((offset + match.start(), f"an upper-case UUID: {literal}"))
    return found


def check_markdown(path, text):
    problems = []
    for offset, words in findings_in(text):
        line = text.count("\n", 0, offset) + 1
        problems.append(f"{path}:{line}: {words}")
    return problems


def check_json(path, document):
    problems = []

    def walk(node, trail, about_id):
        if isinstance(node, dict):
            is_id = about_id or node.get("format") == "uuid"
            for key, value in node.items():
                child_about_id = is_id
                if trail and trail[-1] == "properties":
                    child_about_id = bool(ID_PROPERTY.match(key)) or (isinstance(value, dict) and value.get("format") == "uuid")
                elif key not in ("description", "example", "examples", "summary", "title"):
                    child_about_id = False
                if "name" in node and "in" in node and key == "description":  # a parameter
                    child_about_id = bool(ID_PROPERTY.match(str(node["name"]))) or child_about_id
                if key == "pattern" and isinstance(value, str) and "A-F" in value and "a-f" not in value:
                    problems.append(f"{path}: {'/'.join(trail + [key])}: a pattern that admits only upper-case hex: {value}")
                    continue
                walk(value, trail + [key], child_about_id or (key == "description" and is_id))
        elif isinstance(node, list):
            for index, value in enumerate(node):
                walk(value, trail + [str(index)], about_id)
        elif isinstance(node, str):
            for _, words in findings_in(node, about_id=about_id):
                problems.append(f"{path}: {'/'.join(trail)}: {words}")

    walk(document, [], False)
    return problems


def check(root):
    root = pathlib.Path(root)
    problems = []
    documents = [root / "gateway/Resources/openapi.json"] + sorted((root / "docs").rglob("*.json"))
    for path in documents:
        problems += check_json(path.relative_to(root), json.loads(path.read_text(encoding="utf-8")))
    for path in [root / "README.md"] + sorted((root / "docs").rglob("*.md")):
        problems += check_markdown(path.relative_to(root), path.read_text(encoding="utf-8"))
    return problems, len(documents) + 1 + len(list((root / "docs").rglob("*.md")))


# Samples: each must fail (a finding) or pass (none); the first two are what the documents said before issue 50.
MUST_FAIL = [
    ("json", {"properties": {"id": {"type": "string", "format": "uuid",
              "description": "Upper-case in JSON bodies (Swift's `UUID` encoding); compare ids case-insensitively."}}}),
    ("md", "Ids are UUIDs: compare them as UUIDs, not as text (entity bodies, the feed's `data` included, spell them in upper\n"
           "  case; the feed's `id`, `Location` and tombstones in lower case)."),
    ("md", "Every id in an answer is upper case."),
    ("md", "The `mealId` is written uppercase."),
    ("md", "UUIDs come in capital letters."),
    ("json", {"properties": {"mealId": {"type": "string", "description": "Upper case."}}}),
    ("json", {"parameters": [{"name": "id", "in": "path", "description": "The meal's id, in upper case."}]}),
    ("json", {"properties": {"id": {"type": "string", "example": "3F2504E0-4F89-11D3-9A0C-0305E82C3301"}}}),
    ("md", "For example `{\"id\": \"3F2504E0-4F89-11D3-9A0C-0305E82C3301\"}`."),
    ("json", {"properties": {"id": {"type": "string", "pattern": "^[0-9A-F-]{36}$"}}}),
]
MUST_PASS = [
    ("json", {"properties": {"id": {"type": "string", "format": "uuid",
              "description": "Lower case (RFC 9562), as every id the API writes; any case is accepted where an id is sent."}}}),
    ("md", "the integration tests' contract checks fail on an upper-case UUID in any answer, header or event."),
    ("md", "consumers accept any case on input (events written before 2026-11 carried upper-case ids inside `data`)."),
    ("md", "Ids are accepted in any case (upper case too) in paths, bodies and queries."),
    ("md", "An upper-case id in a path is accepted."),
    ("md", "Ids are never upper case."),
    ("md", "Environment variables are upper case. The meal's id is lower case."),
    ("md", "Brand words (three or more letters, all upper case) rank lower."),
    ("json", {"properties": {"code": {"type": "string", "description": "A code in upper case, such as `EUR`."}}}),
    ("json", {"properties": {"id": {"type": "string", "example": "3f2504e0-4f89-11d3-9a0c-0305e82c3301"}}}),
    ("json", {"properties": {"id": {"type": "string", "pattern": "^[0-9a-fA-F-]{36}$"}}}),
]


def self_test():
    failures = []
    for kind, sample in MUST_FAIL:
        found = check_json("sample", sample) if kind == "json" else check_markdown("sample", sample)
        if not found:
            failures.append(f"    not caught: {sample}")
    for kind, sample in MUST_PASS:
        found = check_json("sample", sample) if kind == "json" else check_markdown("sample", sample)
        if found:
            failures.append(f"    caught, wrongly: {found}")
    for failure in failures:
        print(failure)
    if failures:
        return 1
    print(f"    ok: the check catches the {len(MUST_FAIL)} samples that must fail and passes the {len(MUST_PASS)} that must pass")
    return 0


def main(arguments):
    if arguments[:1] == ["--self-test"]:
        return self_test()
    root = arguments[0] if arguments else pathlib.Path(__file__).resolve().parents[2]
    problems, files = check(root)
    for problem in problems:
        print(f"    {problem}")
    if problems:
        print("    ids are written in lower case and accepted in any case: say so (see the module's doc for what is caught)")
        return 1
    print(f"    ok: none of the {files} documents describes ids as upper case")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
