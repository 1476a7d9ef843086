#!/usr/bin/env python3
"""Fails on any #include that is not an allowed arrow of docs/architecture.json.

Usage: check_include_arrows.py --root DIR [--architecture FILE] [--expect-violations N]

Every C++/CUDA source under the architecture's source folders belongs to a part (the first whose
path pattern matches). Each quoted include that names a part's file must be of the file's own part
or of a part it may use (transitively); includes of third-party headers are not parts and pass.
A violation prints "FILE:LINE: ..." naming both parts. With --expect-violations N the run passes
only when exactly N violations are found (the fixture test that proves the lint can fail).
"""
import argparse
import json
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
SUFFIXES = (".h", ".hpp", ".cc", ".cpp", ".cu", ".cuh")


def part_of(path, parts):
    for part in parts:
        for pattern in part["paths"]:
            if path == pattern or path.startswith(pattern):
                return part["name"]
    return None


def allowed_closure(parts):
    uses = {p["name"]: set(p["uses"]) for p in parts}
    closure = {}
    for name in uses:
        seen, stack = set(), list(uses[name])
        while stack:
            used = stack.pop()
            if used in seen:
                continue
            if used not in uses:
                sys.exit(f"architecture: part {name} uses unknown part {used}")
            seen.add(used)
            stack.extend(uses[used])
        closure[name] = seen
    return closure


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--root", required=True)
    parser.add_argument("--architecture")
    parser.add_argument("--expect-violations", type=int)
    args = parser.parse_args()
    architecture_file = args.architecture or os.path.join(args.root, "docs", "architecture.json")
    with open(architecture_file, encoding="utf-8") as f:
        architecture = json.load(f)
    parts = architecture["parts"]
    closure = allowed_closure(parts)
    direct = {p["name"]: p["uses"] for p in parts}
    violations, files = [], 0
    for top in architecture["sources"]:
        for folder, _, names in os.walk(os.path.join(args.root, top)):
            for name in sorted(names):
                if not name.endswith(SUFFIXES):
                    continue
                path = os.path.relpath(os.path.join(folder, name), args.root).replace(os.sep, "/")
                if any(path.startswith(s) for s in architecture.get("skip", [])):
                    continue
                own = part_of(path, parts)
                if own is None:
                    violations.append(f"{path}:1: belongs to no part of {architecture_file}")
                    continue
                files += 1
                with open(os.path.join(args.root, path), encoding="utf-8", errors="replace") as src:
                    for number, line in enumerate(src, start=1):
                        match = INCLUDE.match(line)
                        if not match:
                            continue
                        target = part_of(match.group(1), parts)
                        if target is None or target == own or target in closure[own]:
                            continue
                        uses = ", ".join(direct[own]) or "no other part"
                        violations.append(
                            f"{path}:{number}: includes \"{match.group(1)}\" of part {target}; "
                            f"part {own} may use only {uses} (and what those use)")
    for violation in violations:
        print(violation)
    print(f"include arrows: {files} files, {len(violations)} violations")
    if args.expect_violations is not None:
        return 0 if len(violations) == args.expect_violations else 1
    return 1 if violations else 0


if __name__ == "__main__":
    sys.exit(main())
