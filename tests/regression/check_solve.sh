#!/usr/bin/env bash
# Regression run of `shardlab solve` on one bundled instance: the final cost
# must not exceed the recorded cost, the lower bound must reach the recorded
# bound, bound <= cost, and `shardlab eval` must agree with the reported cost.
# Registered with ctest by tests/CMakeLists.txt (native builds only).
#
# usage: check_solve.sh SHARDLAB INSTANCE TIME_LIMIT_S RECORDED_COST RECORDED_BOUND [ARGS...]
set -euo pipefail
shardlab=$1 instance=$2 limit=$3 want_cost=$4 want_bound=$5
shift 5
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

"$shardlab" solve "$instance" --time-limit "$limit" --out "$work/result.json" "$@" \
  > "$work/stdout.txt"
field() {  # a string-valued field of the result JSON ("cost": "532843")
  sed -n "s/^  \"$1\": \"\\([0-9-]*\\)\",*$/\\1/p" "$work/result.json" | head -n 1
}
cost=$(field cost)
bound=$(field lower_bound)
if [ -z "$cost" ] || [ -z "$bound" ]; then
  echo "FAIL: no cost or bound in the result of $instance"
  cat "$work/stdout.txt"
  exit 1
fi
eval_cost=$("$shardlab" eval "$instance" "$work/result.json" | sed -n 's/^cost //p')
echo "$(basename "$instance"): cost $cost (recorded $want_cost), bound $bound (recorded $want_bound)"
status=0
if [ "$eval_cost" != "$cost" ]; then
  echo "FAIL: eval says cost $eval_cost"
  status=1
fi
if [ "$cost" -gt "$want_cost" ]; then
  echo "FAIL: cost $cost is worse than the recorded $want_cost"
  status=1
fi
if [ "$bound" -lt "$want_bound" ]; then
  echo "FAIL: bound $bound is below the recorded $want_bound"
  status=1
fi
if [ "$bound" -gt "$cost" ]; then
  echo "FAIL: bound $bound exceeds the cost $cost"
  status=1
fi
exit $status
