#!/usr/bin/env bash
# tests/bench/pipeline_flow_bound.py (the counting MIP over every rank of a
# bidirectional problem, solved by Debian's cbc) against the real CLI: every
# schedule the CLI writes (DualPipe's, the planner's) is a point of the model
# at its makespan, so the model's bound never exceeds a schedule found; on
# small problems the planner proves optimal, the model is infeasible one grid
# step below the optimum, so its bound equals the proven optimum; a schedule
# above a lower cap is not a point of the model (the check can fail).
# Usage: pipeline_flow_bound.sh PATH/TO/shardlab REPO_DIR
source "$(dirname "$0")/lib.bash" "$@"

flow="$repo/tests/bench/pipeline_flow_bound.py"
require pipeline_flow_bound cbc coinor-cbc

# Small problems with pairs that gain, delays and caps; the planner proves
# each optimal within its work (the first needs search: root bound 18.25).
while read -r name grid args; do
  # shellcheck disable=SC2086
  plan_proven "$name" $args
  best=$(json_field "$name.json" makespan)
  # shellcheck disable=SC2086
  check "$name: the planner's schedule is a point of the model" 0 \
    "$(python3 "$flow" $args --check "$name.json" > /dev/null; echo $?)"
  below=$(python3 -c "print($best - $grid)")
  # shellcheck disable=SC2086
  check "$name: no schedule ends by $below" "infeasible" \
    "$(verdict "$flow" $args --makespan "$below" --limit 120)"
done << 'CASES'
p2m8_fb2_c025 0.25 --stages 2 --microbatches 8 --FB 2 --comm 0.25 --mem-cap 3
p2m6_fb25_c05 0.5 --stages 2 --microbatches 6 --FB 2.5 --comm 0.5 --mem-cap 3
p4m4_fb2_c025 0.25 --stages 4 --microbatches 4 --FB 2 --comm 0.25 --mem-cap 5
p2m4_fb2_c0 1 --stages 2 --microbatches 4 --FB 2 --comm 0 --mem-cap 2
CASES

# The LP relaxation on mirror-symmetric points only (--relaxation) is a
# bound too: it has a point at the proven optimum of the first case (a
# schedule exists there) and, there, none one step below.
lp_args="--stages 2 --microbatches 8 --FB 2 --comm 0.25 --mem-cap 3 --relaxation"
# shellcheck disable=SC2086
check "LP at the optimum 19" "feasible (LP)" "$(verdict "$flow" $lp_args --makespan 19)"
# shellcheck disable=SC2086
check "LP at 18.75" "infeasible" "$(verdict "$flow" $lp_args --makespan 18.75)"

# cbc's barrier (--barrier) finds the same LP point at the optimum.
# shellcheck disable=SC2086
check "LP by the barrier at the optimum 19" "feasible (LP)" \
  "$(verdict "$flow" $lp_args --makespan 19 --barrier --limit 60)"

# --decode turns a point back into a schedule that the CLI's independent
# check accepts: DualPipe's own counts at F&B 2.5, comm 0.5, and the counts
# of the planner's schedule of the first small case.
args="--stages 8 --microbatches 20 --FB 2.5 --comm 0.5 --mem-cap 9"
# shellcheck disable=SC2086
"$shardlab" pipeline $args --F 1 --B 1 --W 1 --schedule DualPipe --json > dp.json
# shellcheck disable=SC2086
python3 "$flow" $args --makespan 72.5 --decode dp.json > decoded.json
# shellcheck disable=SC2086
check "DualPipe's counts decode to a valid schedule" 0 \
  "$("$shardlab" pipeline $args --F 1 --B 1 --W 1 --placement bidirectional \
    --check decoded.json > /dev/null; echo $?)"
check "of DualPipe's makespan" 72.5 "$(json_field decoded.json makespan)"
small="--stages 2 --microbatches 8 --FB 2 --comm 0.25 --mem-cap 3"
# shellcheck disable=SC2086
python3 "$flow" $small --makespan 19 --decode p2m8_fb2_c025.json > decoded.json
# shellcheck disable=SC2086
check "the planner's counts decode to a valid schedule" 0 \
  "$("$shardlab" pipeline $small --F 1 --B 1 --W 1 --placement bidirectional \
    --check decoded.json > /dev/null; echo $?)"

# DualPipe's own schedules on its example are points of the model in every
# cell of the README's pairs table.
for fb in 2 2.5 3; do
  for comm in 0 0.25 0.5; do
    args="--stages 8 --microbatches 20 --FB $fb --comm $comm --mem-cap 9"
    # shellcheck disable=SC2086
    "$shardlab" pipeline $args --F 1 --B 1 --W 1 --schedule DualPipe --json > dp.json
    # shellcheck disable=SC2086
    check "DualPipe F&B $fb comm $comm is a point of the model" 0 \
      "$(python3 "$flow" $args --check dp.json > /dev/null; echo $?)"
  done
done

# The check can fail: DualPipe's peak is 9 activations, above a cap of 8.
"$shardlab" pipeline --stages 8 --microbatches 20 --F 1 --B 1 --W 1 --FB 2 --comm 0.25 \
  --mem-cap 9 --schedule DualPipe --json > dp.json
check "a schedule above the cap is no point of the model" 1 \
  "$(python3 "$flow" --stages 8 --microbatches 20 --FB 2 --comm 0.25 --mem-cap 8 \
    --check dp.json > /dev/null; echo $?)"

# The best schedules known in the two cells of the pairs table with F&B 2.5
# and a delay (README; half at 60 and 63.5), written by `shardlab pipeline
# examples/pipeline/dualpipe_example.json --FB 2.5 --comm C --plan --json`
# with the flags of tests/data/pipeline/README.md, or by the order search
# alone (61.25, 61, 64 and 63.5, the same README; 63.5 is the half line):
# valid for the CLI's checker at their makespans under cap 9, points of the
# model, above a cap of 8.
while read -r comm makespan; do
  best="$repo/tests/data/pipeline/dualpipe_fb2.5_comm${comm}_${makespan}.json"
  what="$makespan at F&B 2.5, comm $comm"
  "$shardlab" pipeline "$repo/examples/pipeline/dualpipe_example.json" --FB 2.5 \
    --comm "$comm" --check "$best" --json > best.json
  check "$what: valid" "True" "$(json_field best.json valid)"
  check "$what: its makespan" "$makespan" "$(json_field best.json makespan)"
  check "$what: a point of the model" 0 \
    "$(python3 "$flow" --stages 8 --microbatches 20 --FB 2.5 --comm "$comm" --mem-cap 9 \
      --check "$best" > /dev/null; echo $?)"
  check "$what: above a cap of 8" 3 \
    "$("$shardlab" pipeline "$repo/examples/pipeline/dualpipe_example.json" --FB 2.5 \
      --comm "$comm" --mem-cap 8 --check "$best" > /dev/null 2>&1; echo $?)"
done << 'BEST'
0.25 61.5
0.25 61.25
0.25 61
0.5 64.5
0.5 64
0.5 63.5
BEST

check "--limit -1 is refused" \
  "pipeline_flow_bound.py: error: argument --limit: -1: a positive number of seconds was expected" \
  "$(python3 "$flow" --stages 2 --microbatches 4 --FB 2 --makespan 9 --limit -1 2>&1 | tail -n 1)"

finish "pipeline_flow_bound"
