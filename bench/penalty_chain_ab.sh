#!/bin/bash
# Alternating A/B runs of the chain scene (CPF) for builds of penalty_scene_runner, so that a
# shared machine's load hits every build alike (docs/benchmarks.md, "Chain: rigid pairs in body
# frames").
#   RUNNERS="base=/path/a/penalty_scene_runner new=./build/bench/penalty_scene_runner" \
#     ROUNDS=3 bench/penalty_chain_ab.sh
# One line per run: round, threads, dt, label, 1-minute load average at its start, steps/s (wall)
# and the runner's phases line (absent for a runner that predates it). The same simulated time
# (3 s) at both steps: dt 0.02 s x 150 steps and 5 ms x 600 steps.
rounds=${ROUNDS:-3}
for r in $(seq "$rounds"); do
  for th in 1 2; do
    for dtst in "0.02 150" "0.005 600"; do
      set -- $dtst
      dt=$1
      st=$2
      for lr in $RUNNERS; do
        lab=${lr%%=*}
        run=${lr#*=}
        la=$(cut -d' ' -f1 /proc/loadavg)
        out=$("$run" --scene chain --model cpf --threads "$th" --dt "$dt" --steps "$st" \
          --out "/tmp/chain_ab_${lab}_${th}_${dt}" 2>&1)
        sps=$(echo "$out" | grep ^summary | grep -oE "steps_per_s=[0-9.]+")
        ph=$(echo "$out" | grep ^phases | sed -E 's/.*threads=[0-9]+ //')
        echo "r=$r th=$th dt=$dt $lab load=$la $sps $ph"
      done
    done
  done
done
