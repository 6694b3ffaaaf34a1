#!/usr/bin/env python3
"""Every test CTest knows in a build tree carries exactly one kind as a label: unit,
integration, e2e or fuzz (tests/CMakeLists.txt). `make unit` runs the unit label alone, so a test
without a kind would never run there, and one with two would run where it does not belong.

    check_test_labels.py CTEST BUILD_DIR

A GoogleTest executable not built yet stands in CTest's list as NAME_NOT_BUILT, with no labels:
its tests get their labels when it is built, so it is passed over here.
"""
import json
import subprocess
import sys

KINDS = {"unit", "integration", "e2e", "fuzz"}


def main() -> int:
    ctest, build_dir = sys.argv[1], sys.argv[2]
    listing = subprocess.run(
        [ctest, "--test-dir", build_dir, "--show-only=json-v1"],
        check=True, capture_output=True, text=True).stdout
    tests = json.loads(listing)["tests"]
    wrong = []
    for test in tests:
        if test["name"].endswith("_NOT_BUILT"):
            continue
        labels = next((p["value"] for p in test.get("properties", []) if p["name"] == "LABELS"),
                      [])
        kinds = sorted(KINDS.intersection(labels))
        if len(kinds) != 1:
            wrong.append(f"{test['name']}: labels {labels}")
    for line in wrong:
        print(line)
    print(f"{len(tests)} tests listed, {len(wrong)} without exactly one of {sorted(KINDS)}")
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
