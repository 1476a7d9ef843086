#!/usr/bin/env python3
"""Fails when a C++ or CUDA source is not formatted with the repository's .clang-format.

Usage: check_format.py --root DIR [--clang-format BIN]

Runs `clang-format --dry-run --Werror` over every source under the repository's source folders
(fixtures of other lints excepted) in batches, and prints each file that would change.
"""
import argparse
import os
import subprocess
import sys

FOLDERS = ("core", "gpu", "scenes", "server", "clients", "tools", "bench", "tests")
SUFFIXES = (".h", ".cc", ".cu", ".cuh")
SKIP = ("tests/lint/fixture_bad/", "tests/lint/fixture_arrows/")


def sources(root):
    for top in FOLDERS:
        for folder, dirs, names in os.walk(os.path.join(root, top)):
            dirs.sort()
            for name in sorted(names):
                path = os.path.relpath(os.path.join(folder, name), root).replace(os.sep, "/")
                if name.endswith(SUFFIXES) and not path.startswith(SKIP):
                    yield path


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--root", required=True)
    parser.add_argument("--clang-format", default="clang-format")
    args = parser.parse_args()
    files = list(sources(args.root))
    unformatted = set()
    for start in range(0, len(files), 100):
        batch = files[start:start + 100]
        run = subprocess.run([args.clang_format, "--dry-run", "--Werror", *batch], cwd=args.root,
                             capture_output=True, text=True)
        if run.returncode != 0:
            for line in run.stderr.splitlines():
                if ": error: " in line:
                    unformatted.add(line.split(":", 1)[0])
            if not unformatted:  # clang-format itself failed
                sys.stderr.write(run.stderr)
                return 2
    for path in sorted(unformatted):
        print(f"{path}: not formatted (run: clang-format -i {path})")
    print(f"format: {len(files)} files, {len(unformatted)} not formatted")
    return 1 if unformatted else 0


if __name__ == "__main__":
    sys.exit(main())
