#!/usr/bin/env bash
# tests/bench/pipeline_prefix_bound.py (the bound from the most work any
# schedule finishes by a time t) against the real CLI: its figures on a
# problem small enough to count by hand; on the DAG section's small random
# DAGs, where the planner proves its schedule optimal, the bound never
# exceeds that optimum and the relaxation never falls below the schedule's
# own work (the script exits 5 if it does, shown with a forged schedule);
# and its one-line refusals.
# Usage: pipeline_prefix_bound.sh PATH/TO/shardlab REPO_DIR
source "$(dirname "$0")/lib.bash" "$@"

prefix="$repo/tests/bench/pipeline_prefix_bound.py"
export PYTHONDONTWRITEBYTECODE=1  # it imports pipeline_bench.py from the source tree
run() {  # run ARGS...: the script's output, then its exit status
  python3 "$prefix" --cli "$shardlab" "$@" 2>&1
  echo "rc=$?"
}
result_of() {  # result_of PLAN.json: its makespan and whether it is proven optimal
  python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); print(d["makespan"], d["optimal"])' \
    "$1"
}
bound_of() {  # bound_of OUTPUT: the number on its "bound:" line
  sed -n 's/^bound: \([0-9.]*\) .*/\1/p' <<< "$1"
}

# a -> b with a delay of 1, two micro-batches, two devices. By t = 4 the
# most work is 5: a's two F on one device (0 to 4), b's first F from 3 on
# the other; on a's device b's F would wait for it (4 units in all). By 6 it
# is 7 (b's B may start at 5 on its own device), so 6 + (16 - 7) / 2 rounds
# up to 11, under the planner's proven 14.
cat > two.json << 'EOF'
{"format": "shardlab-pipeline-problem", "version": 1, "devices": 2, "microbatches": 2,
 "operators": [{"name": "a", "F": 2, "B": 2, "W": 0}, {"name": "b", "F": 2, "B": 2, "W": 0}],
 "edges": [{"from": "a", "to": "b", "comm": 1}]}
EOF
out=$(run two.json --at 4,6)
check "two operators: by t = 4" "| 4 | 2 | 2 | 7 | 5 | 10 |" "$(grep '^| 4 ' <<< "$out")"
check "two operators: by t = 6" "| 6 | 3 | 2 | 7 | 7 | 11 |" "$(grep '^| 6 ' <<< "$out")"
check "two operators: the bound" "bound: 11 (from t = 6)" "$(grep '^bound' <<< "$out")"
check "two operators: exit status" "rc=0" "$(tail -n 1 <<< "$out")"
"$shardlab" pipeline two.json --plan --json > two_plan.json 2> /dev/null
check "two operators: the planner's proven optimum" "14 True" "$(result_of two_plan.json)"

# a and b on device 0 feed c on device 1 (delays 1), two micro-batches.
# Device 0 runs a's and b's F one after another, so c's first F cannot
# start before 4 and its second before 8, where the heads alone give 3 and
# 5; c's first B then waits until 6, and a's first B until 9 (c's B at 6,
# its time 2 and the delay 1). By t = 10 device 0 finishes its 8 units of F
# and 1 of B, and device 1 c's 6 units from 4 on: 15, where the heads alone
# allow 17. So the bound is 10 + (24 - 15) / 2, rounded up, 15 (14
# without the rule), under the planner's proven 18.
cat > three.json << 'EOF'
{"format": "shardlab-pipeline-problem", "version": 1, "devices": 2, "microbatches": 2,
 "operators": [{"name": "a", "F": 2, "B": 2, "W": 0, "devices": [0]},
               {"name": "b", "F": 2, "B": 2, "W": 0, "devices": [0]},
               {"name": "c", "F": 2, "B": 2, "W": 0, "devices": [1]}],
 "edges": [{"from": "a", "to": "c", "comm": 1}, {"from": "b", "to": "c", "comm": 1}]}
EOF
out=$(run three.json --at 8,10)
check "ancestors sharing a device: by t = 8" "| 8 | 6 | 3 | 4 | 12 | 14 |" "$(grep '^| 8 ' <<< "$out")"
check "ancestors sharing a device: by t = 10" "| 10 | 6 | 3 | 4 | 15 | 15 |" \
  "$(grep '^| 10 ' <<< "$out")"
"$shardlab" pipeline three.json --plan --json > three_plan.json 2> /dev/null
check "ancestors sharing a device: the planner's proven optimum" "18 True" \
  "$(result_of three_plan.json)"

# The DAG section's small random DAGs (seeds 2000 to 2003: 18 to 36 ops on
# 2 or 3 devices; the planner proves them within its work).
for case in 2000,12,2 2001,18,3 2002,24,2 2003,30,3; do
  seed=${case%%,*}
  python3 -c "import json, sys; sys.path.insert(0, '$repo/tests/bench')
from pipeline_bench import random_dag
s, o, d = (int(x) for x in '$case'.split(','))
json.dump(random_dag(s, o, d), open('dag_$seed.json', 'w'))"
  "$shardlab" pipeline "dag_$seed.json" --plan --work 2000000 --json > "plan_$seed.json" 2> /dev/null
  read -r best proven <<< "$(result_of "plan_$seed.json")"
  check "DAG $seed: the planner proves its schedule optimal" "True" "$proven"
  out=$(run "dag_$seed.json" --at 2,4,6,8,12 --schedule "plan_$seed.json")
  check "DAG $seed: the relaxation is above the schedule's work" "rc=0" "$(tail -n 1 <<< "$out")"
  bound=$(bound_of "$out")
  check "DAG $seed: the bound $bound is at most the optimum $best" "yes" \
    "$(python3 -c "print('yes' if float('${bound:-inf}') <= $best else 'no')")"
done

# A forged schedule that claims more work by t than any schedule can do.
python3 -c "import json
json.dump({'ops': [{'start': 0, 'end': 8}] * 5}, open('forged.json', 'w'))"
out=$(run dag_2000.json --at 4 --schedule forged.json)
check "a forged schedule: refused" \
  "pipeline_prefix_bound: the schedule finishes 20 by 4, above the relaxation's 4 (a bug)" \
  "$(grep '^pipeline_prefix_bound' <<< "$out")"
check "a forged schedule: exit status" "rc=5" "$(tail -n 1 <<< "$out")"

# Refusals, one line each.
"$shardlab" pipeline --stages 4 --microbatches 8 --normalize > stages.json
out=$(run stages.json --at 4)
check "a stages problem" \
  'pipeline_prefix_bound: stages.json: an operator graph ("operators" and "edges") was expected; this problem has stages' \
  "$(head -n 1 <<< "$out")"
out=$(run missing.json --at 4)
check "a missing file: the CLI's line" "1 rc=2" \
  "$(grep -c '^pipeline_prefix_bound: .*missing.json' <<< "$out") $(tail -n 1 <<< "$out")"
out=$(run two.json --at 4.5)
check "a time off the grid" \
  "error: --at 4.5: a positive multiple of the time grid 1 was expected" \
  "$(grep -o 'error: .*' <<< "$out")"
out=$(run two.json --at 4 --nodes 2)
check "a search stopped at --nodes" "| 4 | 2 | 2 | 2 | not finished | - |" \
  "$(grep '^| 4 ' <<< "$out")"

finish "pipeline_prefix_bound"
