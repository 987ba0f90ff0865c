#!/usr/bin/env python3
"""Turns the USDA SR24 jar shipped by Debian's `cronometer` package into one JSON line per food.

The jar is a zip of one XML file per food (`usda_sr24/NNNNN.xml`). Each output line holds
`id`, `name`, the household `measures` (name, amount, grams) and the `nutrients` per 100 g by name.
The meals service imports the file (see Services/Meals/Foods/FoodImporter.swift); nothing here
interprets the data.
"""
import json
import os
import sys
import xml.etree.ElementTree as ElementTree
import zipfile


def convert(jar_path: str, out_path: str) -> int:
    count = 0
    with zipfile.ZipFile(jar_path) as jar, open(out_path + ".partial", "w", encoding="utf-8") as out:
        for entry in sorted(jar.namelist()):
            if not (entry.startswith("usda_sr24/") and entry.endswith(".xml")):
                continue
            food = ElementTree.fromstring(jar.read(entry))
            record = {
                "id": food.get("uid"),
                "name": food.get("name"),
                "measures": [
                    {"name": m.get("name"), "amount": float(m.get("amount")), "grams": float(m.get("grams"))}
                    for m in food.findall("measure")
                ],
                "nutrients": {n.get("name"): float(n.get("amount")) for n in food.findall("nutrient")},
            }
            out.write(json.dumps(record, separators=(",", ":"), ensure_ascii=False) + "\n")
            count += 1
    os.replace(out_path + ".partial", out_path)
    return count


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: usda_sr24_to_jsonl.py JAR OUT.jsonl")
    print(convert(sys.argv[1], sys.argv[2]))
