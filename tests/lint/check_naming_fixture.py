#!/usr/bin/env python3
"""lint.naming_catches_violations: check_naming.py on fixture_naming/ must report exactly the two
planted names, including the one in a file that cannot be checked in one batch with another
(both define the same file-local helper), and fail.

Usage: check_naming_fixture.py --clang-tidy BIN --config REPO/.clang-tidy
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.realpath(__file__))
EXPECTED = {("clash_b.cc", "BadVariable"), ("bad_c.cc", "bad_function_name")}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--clang-tidy", required=True)
    parser.add_argument("--config", required=True)
    args = parser.parse_args()
    fixture = os.path.join(HERE, "fixture_naming")
    sources = sorted(os.listdir(os.path.join(fixture, "server")))
    with tempfile.TemporaryDirectory() as build:
        with open(os.path.join(build, "compile_commands.json"), "w", encoding="utf-8") as f:
            json.dump([{"directory": build, "file": os.path.join(fixture, "server", s),
                        "command": f"c++ -std=c++20 -o {s}.o -c {os.path.join(fixture, 'server', s)}"}
                       for s in sources], f)
        run = subprocess.run(
            [sys.executable, os.path.join(HERE, "check_naming.py"), "--root", fixture, "--build",
             build, "--clang-tidy", args.clang_tidy, "--config", args.config, "--jobs", "1",
             "--folders", "server"], capture_output=True, text=True)
    print(run.stdout, run.stderr)
    reported = {(os.path.basename(line.split(":", 1)[0]), name)
                for line in run.stdout.splitlines() if "readability-identifier-naming" in line
                for name in [line.split("'")[1]]}
    if run.returncode != 1 or reported != EXPECTED:
        print(f"expected exit 1 and {sorted(EXPECTED)}, got exit {run.returncode} and "
              f"{sorted(reported)}")
        return 1
    print("the planted names were reported")
    return 0


if __name__ == "__main__":
    sys.exit(main())
