#!/usr/bin/env bash
# End-to-end checks of the `shardlab` command: the contest output convention,
# eval of text and result JSON, the result JSON's fields, exact error messages
# and exit codes. Usage: sharding.sh PATH/TO/shardlab REPO_DIR
source "$(dirname "$0")/lib.bash" "$@"
cp "$repo/examples/example.json" .

# solve: progress lines start with '#', the last line is the plan.
"$shardlab" solve example.json --time-limit 2 --out result.json > out.txt
check "solve exit code" 0 $?
check "solve last line" "[0, 0, 2, 1, 0]" "$(tail -n 1 out.txt)"
check "solve progress lines" "" "$(head -n -1 out.txt | grep -v '^#')"
check "eval of solve output" "cost 445
verdict feasible
peak 50 at time 50 (limit 50)" "$("$shardlab" eval example.json out.txt)"
check "eval of result JSON" "cost 445" "$("$shardlab" eval example.json result.json | head -n 1)"

# The result JSON.
sha=$(sha256sum example.json | cut -d' ' -f1)
check "result JSON fields" "445 True feasible 50 50 [0, 0, 2, 1, 0] $sha example 2.0 1 1 True" "$(python3 -c "
import json; r = json.load(open('result.json'))
print(r['cost'], r['feasible'], r['verdict'], r['peak_usage'], r['usage_limit'], r['solution'],
      r['instance']['sha256'], r['instance']['name'], r['settings']['time_limit_s'],
      r['settings']['seed'], r['settings']['workers'], int(r['lower_bound']) <= 445 and len(r['trace']) >= 1)")"

# The contest's positional time limit.
check "positional time limit" "[0, 0, 2, 1, 0]" "$("$shardlab" solve example.json 1 | tail -n 1)"

# eval verdicts and errors.
printf '# a comment\n[0, 1, 2, 0, 0]\n\n' > other.txt
check "eval cost 495" "cost 495" "$("$shardlab" eval example.json other.txt | head -n 1)"
echo "[0, 0, 1, 1, 0]" > over.txt
"$shardlab" eval example.json over.txt > over.out
check "eval over limit exit" 3 $?
check "eval over limit" "cost 415
verdict over_limit
peak 55 at time 50 (limit 50)
# usage 55 at time 50 exceeds the limit 50" "$(cat over.out)"
echo "[0, 0, 2, 1]" > short.txt
check "eval wrong length" "shardlab: short.txt: the solution has 4 entries but the instance has 5 nodes" \
  "$("$shardlab" eval example.json short.txt 2>&1)"
"$shardlab" eval example.json short.txt 2>/dev/null
check "eval wrong length exit" 2 $?
echo "[0, 0, 5, 1, 0]" > range.txt
check "eval out of range" "shardlab: range.txt: node 2 has strategy 5 but only 3 strategies (0..2)" \
  "$("$shardlab" eval example.json range.txt 2>&1)"
echo "no list here" > junk.txt
check "eval junk" "shardlab: junk.txt: line 1: expected a list like [0, 2, 1], found 'no list here'" \
  "$("$shardlab" eval example.json junk.txt 2>&1)"

# Command-line errors (exit 1) and unreadable files (exit 4).
check "bad option" "shardlab: option --time-limit: cannot read 'soon' (expected a number from 0 to 10000000)" \
  "$("$shardlab" solve example.json --time-limit soon 2>&1)"
"$shardlab" solve example.json --workers 0 2>/dev/null
check "workers out of range exit" 1 $?
check "unknown option" "shardlab: unknown option 'speed'" "$("$shardlab" solve example.json --speed 3 2>&1)"
"$shardlab" info missing.json 2>/dev/null
check "missing file exit" 4 $?
check "missing file" "shardlab: missing.json: cannot open the file (No such file or directory)" \
  "$("$shardlab" info missing.json 2>&1)"
mkdir folder.json
"$shardlab" info folder.json 2>/dev/null
check "a folder exit" 4 $?
check "a folder" "shardlab: folder.json: cannot read the file (Is a directory)" \
  "$("$shardlab" info folder.json 2>&1)"
"$shardlab" eval example.json folder.json 2>/dev/null
check "a folder as the solution exit" 4 $?
check "--k=v is --k v" "[0, 0, 2, 1, 0]" "$("$shardlab" solve example.json --time-limit=1 --seed=3 | tail -n 1)"
check "an unknown option" "shardlab: unknown option --bogus" \
  "$("$shardlab" info example.json --bogus 2>&1 | head -n 1)"
check "help names the internal exit code" \
  "3 no feasible plan (solve) or an infeasible plan (eval); 4 file not readable or writable;
5 internal error (a check of the tool's own result failed: a bug, please report it)" \
  "$("$shardlab" help | tail -n 2)"

# No plan fits the limit: "[]" and exit 3.
python3 -c "
import json; d = json.load(open('example.json')); d['problem']['usage_limit'] = 40
json.dump(d, open('tight.json', 'w'))"
"$shardlab" solve tight.json --time-limit 1 > tight.out
check "infeasible exit" 3 $?
check "infeasible last line" "[]" "$(tail -n 1 tight.out)"
check "infeasible reason" "# no plan fits: even the least-usage plan peaks at 50 > limit 40" \
  "$(grep 'no plan fits' tight.out)"

# info.
"$shardlab" info example.json > info.out
check "info nodes" "nodes            5" "$(grep '^nodes' info.out)"
check "info matrices" "edge matrices    5 distinct" "$(grep '^edge matrices' info.out)"
check "info min peak" "min peak usage   50 (1.000 of the limit)" "$(grep '^min peak' info.out)"
check "info horizon" "time horizon     [30, 150), 4 distinct interval starts" "$(grep '^time horizon' info.out)"

finish "sharding CLI"
