#!/usr/bin/env python3
"""Fails on any name that breaks the repository's naming rules (.clang-tidy's
readability-identifier-naming options: CamelCase types and functions, snake_case variables with
unit and frame suffixes, member_, kConstant).

Usage: check_naming.py --root DIR --build DIR [--clang-tidy BIN] [--jobs N] [--batch N]
                       [--folders F ...]

Runs clang-tidy with only that check, as errors, over the translation units of the given folders
found in the build's compile_commands.json (headers they include are checked through the
HeaderFilterRegex of .clang-tidy), N at a time.

Parsing the headers is most of clang-tidy's time (a server file: ~8 s of parsing, ~2 s of the
check), so units compiled with the same flags are checked together, up to --batch in one
clang-tidy run over a generated file that includes them (each header parsed once per batch: 4x
less CPU for the server's service folder). Units that do not compile together (two files with the
same file-local name) are checked one by one, as are all with --batch 1.
"""
import argparse
import atexit
import concurrent.futures
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

# The subset the suite checks (docs/architecture.md, "Format and lint"): the trunk, where names
# meet other rooms. The leaves' headers are checked wherever the trunk includes them.
DEFAULT_FOLDERS = ("core/sim", "server", "clients/cpp", "scenes/loader", "tools")
CHECK = "readability-identifier-naming"
# POSIX extended regex metacharacters (clang-tidy's --header-filter is an llvm::Regex).
ERE_SPECIAL = set(".^$|()[]{}*+?\\")


def ere_escape(text):
    return "".join("\\" + c if c in ERE_SPECIAL else c for c in text)


def header_filter_of(config_path):
    with open(config_path, encoding="utf-8") as f:
        match = re.search(r"^HeaderFilterRegex:\s*'([^']*)'", f.read(), re.M)
    return match.group(1) if match else ".*"


def unit_flags(entry, unit):
    """The compile command's flags without the compiler, the output and the source."""
    args = entry["arguments"] if "arguments" in entry else shlex.split(entry["command"])
    flags, skip = [], False
    for arg in args[1:]:
        if skip:
            skip = False
        elif arg in ("-o", "-c", "-MT", "-MF", "-MQ", "-MD", "-MMD"):
            skip = arg in ("-o", "-MT", "-MF", "-MQ")
        elif os.path.realpath(os.path.join(entry["directory"], arg)) != unit:
            flags.append(arg)
    return tuple(flags)


def findings_of(stdout):
    return [line for line in stdout.splitlines() if CHECK in line]


def errors_in(stdout):
    """The files named by errors that are not naming findings."""
    return {line.split(":", 1)[0] for line in stdout.splitlines()
            if ": error:" in line and CHECK not in line}


def compile_failed(stdout):
    """An error that is not a naming finding: the batch did not compile as one unit."""
    return any(": error:" in line and CHECK not in line for line in stdout.splitlines())


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--root", required=True)
    parser.add_argument("--build", required=True)
    parser.add_argument("--clang-tidy", default="clang-tidy")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--batch", type=int, default=12,
                        help="units checked in one clang-tidy run (1: one run per unit)")
    parser.add_argument("--config", help="the .clang-tidy to apply (default: ROOT/.clang-tidy)")
    parser.add_argument("--folders", nargs="*", default=list(DEFAULT_FOLDERS))
    args = parser.parse_args()
    root = os.path.realpath(args.root)
    config = os.path.realpath(args.config or os.path.join(root, ".clang-tidy"))
    with open(os.path.join(args.build, "compile_commands.json"), encoding="utf-8") as f:
        commands = json.load(f)

    groups = {}  # (directory, flags) -> units compiled alike
    for entry in commands:
        unit = os.path.realpath(os.path.join(entry["directory"], entry["file"]))
        if not unit.endswith(".cc") or not any(
                unit.startswith(os.path.join(root, folder) + os.sep) for folder in args.folders):
            continue
        members = groups.setdefault((entry["directory"], unit_flags(entry, unit)), [])
        if unit not in members:
            members.append(unit)
    units = sorted({u for members in groups.values() for u in members})
    if not units:
        print(f"naming: no translation units of {args.folders} in {args.build}")
        return 2

    batch = max(1, args.batch)
    batches = [(directory, flags, sorted(members)[i:i + batch])
               for (directory, flags), members in sorted(groups.items())
               for i in range(0, len(members), batch)]
    base_filter = header_filter_of(config)
    scratch = tempfile.mkdtemp(prefix="check_naming_")
    atexit.register(shutil.rmtree, scratch, True)  # the generated batch files
    tidy = [args.clang_tidy, f"--config-file={config}", "--quiet", f"--checks=-*,{CHECK}",
            f"--warnings-as-errors={CHECK}"]

    runs = []  # one entry per clang-tidy run, for the summary

    def check_one(unit):
        runs.append(1)
        run = subprocess.run(tidy + ["-p", args.build, unit], capture_output=True, text=True)
        return unit, run.returncode, findings_of(run.stdout), run.stderr

    def check_batch(name, directory, flags, members):
        if len(members) == 1:
            return [check_one(members[0])]
        runs.append(len(members))
        unity = os.path.join(scratch, f"batch_{name}.cc")
        with open(unity, "w", encoding="utf-8") as f:
            f.writelines(f'#include "{member}"\n' for member in members)
        # The members are headers of the generated unit: check them as the main file would be.
        member_filter = "|".join("^" + ere_escape(m) + "$" for m in members)
        run = subprocess.run(
            tidy + [f"--header-filter=({base_filter})|{member_filter}", unity, "--", *flags],
            capture_output=True, text=True, cwd=directory)
        if not compile_failed(run.stdout) and (run.returncode == 0 or findings_of(run.stdout)):
            return [(unity, run.returncode, findings_of(run.stdout), run.stderr)]
        # A clash is reported in the later file (a redefinition): check those apart from the rest;
        # when no member is named, halve the batch.
        clashing = sorted(m for m in members if m in errors_in(run.stdout))
        if clashing and len(clashing) < len(members):
            parts = [[m for m in members if m not in clashing], clashing]
        else:
            parts = [members[:len(members) // 2], members[len(members) // 2:]]
        return [result for i, part in enumerate(parts)
                for result in check_batch(f"{name}_{i}", directory, flags, part)]

    failures = set()
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        jobs = [pool.submit(check_batch, str(i), *b) for i, b in enumerate(batches)]
        for job in jobs:
            for unit, code, findings, stderr in job.result():
                for finding in findings:
                    failures.add(os.path.relpath(finding, root) if finding.startswith(root) else finding)
                if code != 0 and not findings:
                    print(f"{os.path.relpath(unit, root)}: clang-tidy failed:\n{stderr[-2000:]}")
                    failures.add(unit)
    for failure in sorted(failures):
        print(failure)
    print(f"naming: {len(units)} translation units, {len(failures)} findings ({len(runs)} "
          f"clang-tidy runs, {sum(1 for n in runs if n == 1)} of them on one unit)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
