#!/usr/bin/env python3
"""Fails when a module that serves no HTTP depends on Hummingbird, directly or through another of our modules.

The shared vocabulary (the wire JSON, the event and sync contracts, the API's error shape and cursors, the Kafka
wrapper, the access tokens) is used by processes and tools that serve nothing; a server framework in its closure would
be built and linked into all of them. Reads the package description (`swift package describe --type json`): no build.
"""
import json
import subprocess
import sys

NO_HTTP_SERVER = ["WireJSON", "EventContracts", "APIContracts", "SyncContracts", "Kafka", "AccessTokens", "FoodData"]
SERVER_PRODUCTS = {"Hummingbird", "HummingbirdCore"}


def main(root: str) -> int:
    described = subprocess.run(
        ["swift", "package", "describe", "--type", "json"], cwd=root, check=True, capture_output=True, text=True
    ).stdout
    targets = {target["name"]: target for target in json.loads(described)["targets"]}
    problems = []
    for name in NO_HTTP_SERVER:
        seen, path_to = set(), {name: [name]}
        stack = [name]
        while stack:
            current = stack.pop()
            if current in seen or current not in targets:
                continue
            seen.add(current)
            for product in targets[current].get("product_dependencies", []):
                if product in SERVER_PRODUCTS:
                    problems.append(f"{name} depends on {product} through {' -> '.join(path_to[current])}")
            for dependency in targets[current].get("target_dependencies", []):
                path_to.setdefault(dependency, path_to[current] + [dependency])
                stack.append(dependency)
    for problem in problems:
        print(f"    {problem}")
    if problems:
        return 1
    print(f"    ok: {', '.join(NO_HTTP_SERVER)} depend on no HTTP server")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "."))
