#!/bin/bash
# Alternating A/B runs of service_latency_bench --scene arm for two or more builds, so that the
# shared machine's load hits every build alike (docs/benchmarks.md, "Step round trip of the arm
# holding one part"; the pattern of bench/penalty_chain_ab.sh). Keep a copy of the old binary
# before rebuilding:
#   BENCHES="old=/tmp/slb_old new=./build/bench/service_latency_bench" ROUNDS=3 CALLS=2000 \
#     bench/arm_hold_ab.sh
# One line per run: round, label, 1-minute load average at its start, then the p50 and p99 [us] of
# Ping, Step(n_steps = 1) and World::Step(1) (the physics alone), and Step / Ping at p50 and p99.
rounds=${ROUNDS:-3}
calls=${CALLS:-2000}
warmup=${WARMUP:-300}
for r in $(seq "$rounds"); do
  for lb in $BENCHES; do
    lab=${lb%%=*}
    run=${lb#*=}
    la=$(cut -d' ' -f1 /proc/loadavg)
    out=$("$run" --scene arm --calls "$calls" --warmup "$warmup" 2>&1)
    # The table's rows: | name | calls | p50 | p90 | p99 | p99.9 |
    row() { echo "$out" | grep -F "| $1" | head -1 | awk -F'|' '{gsub(/ /,""); print $4, $6}'; }
    read -r ping50 ping99 <<<"$(row 'Ping')"
    read -r step50 step99 <<<"$(row 'Step(n_steps = 1)')"
    read -r phys50 phys99 <<<"$(row 'World::Step(1)')"
    if [ -z "$step50" ]; then
      echo "r=$r $lab load=$la FAILED: $(echo "$out" | tail -2)"
      continue
    fi
    ratio50=$(awk -v a="$step50" -v b="$ping50" 'BEGIN { printf "%.2f", a / b }')
    ratio99=$(awk -v a="$step99" -v b="$ping99" 'BEGIN { printf "%.2f", a / b }')
    echo "r=$r $lab load=$la ping_p50=$ping50 ping_p99=$ping99 step_p50=$step50" \
      "step_p99=$step99 physics_p50=$phys50 physics_p99=$phys99 step/ping_p50=${ratio50}x" \
      "step/ping_p99=${ratio99}x"
  done
done
