#!/usr/bin/env bash
# tests/bench/pipeline_sat_bound.py (the counting model of
# pipeline_flow_bound.py as clauses, solved by Debian's cadical) against the
# real CLI: on small problems the planner proves optimal, the clauses have no
# model one grid step below the optimum and one at it, which decodes to a
# schedule the CLI's independent check accepts; the CLI's own schedules
# pinned as counts satisfy them, and a schedule above a lower cap does not;
# a neighbourhood of DualPipe's schedule (--free) holds a better one.
# Usage: pipeline_sat_bound.sh PATH/TO/shardlab REPO_DIR
source "$(dirname "$0")/lib.bash" "$@"

sat="$repo/tests/bench/pipeline_sat_bound.py"
require pipeline_sat_bound cadical cadical

# Small problems with pairs that gain, delays and caps (the optima the
# planner proves: 17, 14.25 and 11; pipeline_flow_bound.sh checks the same).
while read -r name grid args; do
  # shellcheck disable=SC2086
  plan_proven "$name" $args
  best=$(json_field "$name.json" makespan)
  below=$(python3 -c "print($best - $grid)")
  # shellcheck disable=SC2086
  check "$name: no schedule ends by $below" "infeasible" \
    "$(verdict "$sat" $args --makespan "$below" --limit 120)"
  # shellcheck disable=SC2086
  check "$name: a model at the optimum $best" "feasible" \
    "$(verdict "$sat" $args --makespan "$best" --limit 120 --decode-to "$name.decoded.json")"
  # shellcheck disable=SC2086
  check "$name: its model decodes to a valid schedule" 0 \
    "$("$shardlab" pipeline $args --F 1 --B 1 --W 1 --placement bidirectional \
      --check "$name.decoded.json" > /dev/null; echo $?)"
  check "$name: of the optimum's makespan" "$(python3 -c "print(float($best))")" \
    "$(json_field "$name.decoded.json" makespan)"
  # shellcheck disable=SC2086
  check "$name: the planner's counts satisfy the clauses" "feasible" \
    "$(verdict "$sat" $args --makespan "$best" --limit 120 --fix "$name.json")"
done << 'CASES'
p2m6_fb25_c05 0.5 --stages 2 --microbatches 6 --FB 2.5 --comm 0.5 --mem-cap 3
p4m4_fb2_c025 0.25 --stages 4 --microbatches 4 --FB 2 --comm 0.25 --mem-cap 5
p2m4_fb2_c0 1 --stages 2 --microbatches 4 --FB 2 --comm 0 --mem-cap 2
CASES

# Pinned counts can fail: the planner's 4-rank schedule holds 4 activations
# on some rank, above a cap of 3 (the CLI's check rejects it there too).
check "the CLI rejects that schedule under a cap of 3" 3 \
  "$("$shardlab" pipeline --stages 4 --microbatches 4 --F 1 --B 1 --W 1 --FB 2 --comm 0.25 \
    --mem-cap 3 --placement bidirectional --check p4m4_fb2_c025.json > /dev/null 2>&1; echo $?)"
check "a schedule above the cap satisfies no clauses" "infeasible" \
  "$(verdict "$sat" --stages 4 --microbatches 4 --FB 2 --comm 0.25 --mem-cap 3 --makespan 14.25 \
    --limit 120 --fix p4m4_fb2_c025.json)"

# A neighbourhood of a schedule (--fix with --free A:B): DualPipe's on 4
# ranks and 8 micro-batches (cap 5) ends at 24.25, where the optimum is 23
# (README). Pinned before A and, moved to end by the makespan, from B on,
# the clauses admit the schedule itself but not 0.25 earlier; rearranging
# [4, 20) gives 23.5, a schedule the CLI accepts, and [8, 16) does not.
p4m8="--stages 4 --microbatches 8 --FB 2 --comm 0.25 --mem-cap 5"
# shellcheck disable=SC2086
"$shardlab" pipeline $p4m8 --F 1 --B 1 --W 1 --placement bidirectional --schedule dualpipe \
  --json > dualpipe.json 2> /dev/null
check "DualPipe's schedule on 4 ranks" "24.25" "$(json_field dualpipe.json makespan)"
# shellcheck disable=SC2086
check "nothing free: the schedule itself" "feasible" \
  "$(verdict "$sat" $p4m8 --makespan 24.25 --fix dualpipe.json --free 0:0)"
# shellcheck disable=SC2086
check "nothing free: not 0.25 earlier" "infeasible" \
  "$(verdict "$sat" $p4m8 --makespan 24 --fix dualpipe.json --free 0:0)"
# shellcheck disable=SC2086
check "[4, 20) free: 23.5" "feasible" \
  "$(verdict "$sat" $p4m8 --makespan 23.5 --fix dualpipe.json --free 4:20 --decode-to nb.json)"
# shellcheck disable=SC2086
check "[4, 20) free: a valid schedule" 0 \
  "$("$shardlab" pipeline $p4m8 --F 1 --B 1 --W 1 --placement bidirectional \
    --check nb.json > /dev/null; echo $?)"
check "[4, 20) free: of makespan 23.5" "23.5" "$(json_field nb.json makespan)"
# shellcheck disable=SC2086
check "[8, 16) free: no 23.5" "infeasible" \
  "$(verdict "$sat" $p4m8 --makespan 23.5 --fix dualpipe.json --free 8:16)"
# shellcheck disable=SC2086
check "--free needs two times" "--free 4: A:B (two times) was expected" \
  "$(python3 "$sat" $p4m8 --makespan 23.5 --fix dualpipe.json --free 4 2>&1)"
# shellcheck disable=SC2086
check "--free needs --fix" "--free needs --fix" \
  "$(python3 "$sat" $p4m8 --makespan 23.5 --free 4:20 2>&1)"
# shellcheck disable=SC2086
check "--free needs A <= B" "--free 20:4: A <= B was expected" \
  "$(python3 "$sat" $p4m8 --makespan 23.5 --fix dualpipe.json --free 20:4 2>&1)"

# A time limit: cadical counts whole seconds, so 0.5 is rounded up to 1 (it
# once became -t 0, no limit at all, and ran the refutation of 22.75 here,
# 40 to 106 s, to its end); 0 or less is refused.
# shellcheck disable=SC2086
check "--limit 0.5 stops after a second" "unknown" \
  "$(verdict "$sat" $p4m8 --makespan 22.75 --limit 0.5)"
# shellcheck disable=SC2086
check "--limit 0 is refused" \
  "pipeline_sat_bound.py: error: argument --limit: 0: a positive number of seconds was expected" \
  "$(python3 "$sat" $p4m8 --makespan 23.5 --limit 0 2>&1 | tail -n 1)"

# --target passes cadical's option set (a stand-in cadical records its
# arguments), and the real one still refutes 14 on the 4-rank problem.
mkdir fake
printf '#!/bin/sh\necho "$@" > "%s/args"\necho "s UNSATISFIABLE"\n' "$PWD" > fake/cadical
chmod +x fake/cadical
# shellcheck disable=SC2086
PATH="$PWD/fake:$PATH" python3 "$sat" $p4m8 --makespan 23.5 --limit 2.5 --target unsat > /dev/null
check "--target unsat reaches cadical" "-q --unsat -t 3" "$(cut -d' ' -f1-4 args)"
check "--target unsat: 14 is still refuted" "infeasible" \
  "$(verdict "$sat" --stages 4 --microbatches 4 --FB 2 --comm 0.25 --mem-cap 5 --makespan 14 \
    --limit 120 --target unsat)"

finish "pipeline_sat_bound"
