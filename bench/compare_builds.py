#!/usr/bin/env python3
"""Old-against-new on the benchmarks of record, in one run: two build trees, alternating.

Usage: bench/compare_builds.py --old OLD_BUILD_DIR --new NEW_BUILD_DIR [--rounds 3] [--quick]

Runs, for each round, every benchmark with the old binaries and then the new ones (the order
swaps every round, so a drift in machine load hits both alike) and prints the median of each
figure per build and the ratio new / old:
  - CCD: ns per narrow-phase query (ccd_narrow_phase_bench, every case);
  - per pair: CCD + CPF and DCD + DPF for a new contact, intervals + CPF for a tracked pair
    (penalty_pair_bench);
  - Table 3: ms per frame of the twisting bar (bar5k) and the pull-through gap (gap5k) on one
    thread (local_global_bench);
  - Step round trip: Step(n_steps = 1) p50 and p99 over a bare Ping (service_latency_bench).
This machine is shared: read a ratio within the spread of its rounds as "no change".
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys


def run(cmd):
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"compare_builds: {' '.join(cmd)} failed ({done.returncode}):\n{done.stderr[-2000:]}")
    return done.stdout


def google_benchmark(build, binary, extra):
    out = run([os.path.join(build, "bench", binary), "--benchmark_format=json", *extra])
    return {b["name"]: b["real_time"] for b in json.loads(out)["benchmarks"]
            if b.get("run_type", "iteration") == "iteration"}


def table3(build, cases, frames):
    out = run([os.path.join(build, "bench", "local_global_bench"), "--cases", cases,
               "--frames", str(frames)])
    figures, case = {}, None
    for line in out.splitlines():
        heading = re.match(r"### (\w+):", line)
        if heading:
            case = heading.group(1)
        row = re.match(r"\| 1 thread \|(.*)\|\s*$", line)
        if row and case:
            cells = [c.strip() for c in row.group(1).split("|")]
            figures[f"{case} frame ms (1 thread)"] = float(cells[-2])  # Frame (mean)
    return figures


def step_round_trip(build, calls):
    out = run([os.path.join(build, "bench", "service_latency_bench"), "--calls", str(calls)])
    for line in out.splitlines():
        if line.startswith("| ratio Step / Ping"):
            cells = [c.strip().rstrip("x") for c in line.strip("|").split("|")]
            return {"Step/Ping p50": float(cells[2]), "Step/Ping p99": float(cells[4])}
    sys.exit("compare_builds: no ratio line in service_latency_bench's output")


def measure(build, quick):
    min_time = "0.1" if quick else "0.3"
    figures = {}
    for name, value in google_benchmark(build, "ccd_narrow_phase_bench",
                                        [f"--benchmark_min_time={min_time}"]).items():
        figures[f"ccd {name} ns"] = value
    for name, value in google_benchmark(
            build, "penalty_pair_bench",
            [f"--benchmark_min_time={min_time}",
             "--benchmark_filter=CcdCpf$|DcdDpf$|Tracked"]).items():
        figures[f"pair {name} ns"] = value
    figures.update(table3(build, "bar5k,gap5k", 2 if quick else 5))
    figures.update(step_round_trip(build, 2000 if quick else 10000))
    return figures


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--old", required=True)
    parser.add_argument("--new", required=True)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="short runs, to try the script")
    args = parser.parse_args()
    samples = {"old": [], "new": []}
    for r in range(args.rounds):
        order = ("old", "new") if r % 2 == 0 else ("new", "old")
        for which in order:
            print(f"round {r + 1}/{args.rounds}: {which}", file=sys.stderr, flush=True)
            samples[which].append(measure(getattr(args, which), args.quick))
    print(f"| figure | old (median of {args.rounds}) | new | new / old | new / old per round |")
    print("|---|---|---|---|---|")
    for key in samples["old"][0]:
        old = [s[key] for s in samples["old"]]
        new = [s[key] for s in samples["new"] if key in s]
        if len(new) != len(old):
            continue
        per_round = ", ".join(f"{n / o:.2f}" for n, o in zip(new, old))
        ratio = statistics.median(new) / statistics.median(old)
        print(f"| {key} | {statistics.median(old):.4g} | {statistics.median(new):.4g} | "
              f"{ratio:.3f} | {per_round} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
