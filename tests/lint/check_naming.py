#!/usr/bin/env python3
"""Fails on any name that breaks the repository's naming rules (.clang-tidy's
readability-identifier-naming options: CamelCase types and functions, snake_case variables with
unit and frame suffixes, member_, kConstant).

Usage: check_naming.py --root DIR --build DIR [--clang-tidy BIN] [--jobs N] [--folders F ...]

Runs clang-tidy with only that check, as errors, over the translation units of the given folders
found in the build's compile_commands.json (headers they include are checked through the
HeaderFilterRegex of .clang-tidy), N at a time.
"""
import argparse
import concurrent.futures
import json
import os
import subprocess
import sys

# The subset the suite checks (docs/architecture.md, "Format and lint"): the trunk, where names
# meet other rooms. The leaves' headers are checked wherever the trunk includes them.
DEFAULT_FOLDERS = ("core/sim", "server", "clients/cpp", "scenes/loader", "tools")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--root", required=True)
    parser.add_argument("--build", required=True)
    parser.add_argument("--clang-tidy", default="clang-tidy")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--folders", nargs="*", default=list(DEFAULT_FOLDERS))
    args = parser.parse_args()
    root = os.path.realpath(args.root)
    with open(os.path.join(args.build, "compile_commands.json"), encoding="utf-8") as f:
        commands = json.load(f)
    units = sorted({
        os.path.realpath(entry["file"]) for entry in commands
        if any(os.path.realpath(entry["file"]).startswith(os.path.join(root, folder) + os.sep)
               for folder in args.folders)
        and entry["file"].endswith(".cc")})
    if not units:
        print(f"naming: no translation units of {args.folders} in {args.build}")
        return 2

    def check(unit):
        run = subprocess.run(
            [args.clang_tidy, "-p", args.build, "--quiet",
             "--checks=-*,readability-identifier-naming",
             "--warnings-as-errors=readability-identifier-naming", unit],
            capture_output=True, text=True)
        findings = [line for line in run.stdout.splitlines() if "readability-identifier-naming" in line]
        return unit, run.returncode, findings, run.stderr

    failures = set()
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        for unit, code, findings, stderr in pool.map(check, units):
            for finding in findings:
                failures.add(os.path.relpath(finding, root) if finding.startswith(root) else finding)
            if code != 0 and not findings:
                print(f"{os.path.relpath(unit, root)}: clang-tidy failed:\n{stderr[-2000:]}")
                failures.add(unit)
    for failure in sorted(failures):
        print(failure)
    print(f"naming: {len(units)} translation units, {len(failures)} findings")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
