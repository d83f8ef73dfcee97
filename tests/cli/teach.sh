#!/usr/bin/env bash
# End-to-end checks of `shardlab teach`: every example's instance passes
# `shardlab eval` with the plan the command explains, at the cost and bound
# it reports (proven optimal), the textbook names, --force, --emit's sidecar,
# and the exact errors and exit codes. Usage: teach.sh PATH/TO/shardlab REPO_DIR
source "$(dirname "$0")/lib.bash" "$@"

field() {  # field FILE PYTHON-EXPRESSION-ON-d
  python3 -c "import json; d = json.load(open('$1')); print($2)"
}

# One python call per example reads everything checked (python's start-up
# is most of this script's time on a busy machine).
summary() {  # summary EXAMPLE: "proven cost==bound total==cost sidecar-nodes instance-nodes roles"
  python3 - "$1" <<'PY'
import json, sys
name = sys.argv[1]
d = json.load(open(f'{name}.out.json'))
inst = json.load(open(f'{name}.inst.json'))
side = json.load(open(f'{name}.inst.sidecar.json'))
open(f'{name}.plan.txt', 'w').write(str(d['plan']) + '\n')
roles = ','.join(f"{a}:{v['role']}" for a, v in d['axes'].items())
print(d['proven_optimal'], d['cost'] == d['lower_bound'], d['breakdown']['total_ns'] == d['cost'],
      len(side['nodes']) == len(inst['problem']['nodes']['costs']), roles, d['cost'])
PY
}

expect_roles=(mlp:x:megatron data_parallel:x:data_parallel
              transformer:data:data_parallel,model:megatron zero:x:zero3 moe:x:expert_parallel)
for entry in "${expect_roles[@]}"; do
  example=${entry%%:*}
  roles=${entry#*:}
  "$shardlab" teach "$repo/examples/teach/$example.json" --emit "$example.inst.json" --json \
    > "$example.out.json"
  check "$example exit code" 0 $?
  read -r proven tight adds named got_roles cost <<< "$(summary "$example")"
  check "$example proven, bound = cost, breakdown adds up, sidecar names every node" \
    "True True True True" "$proven $tight $adds $named"
  check "$example textbook roles" "$roles" "$got_roles"
  check "$example eval" "cost $cost
verdict feasible" "$("$shardlab" eval "$example.inst.json" "$example.plan.txt" | head -n 2)"
done
check "mlp: Megatron" "{'b': None, 'd': None, 'f': 'x'} ['all-reduce x forward op y'] 3" \
  "$(field mlp.out.json "d['ops']['h']['dims'], \
     [c['kind'] + ' ' + c['axis'] + ' ' + c['pass'] + ' ' + c['on'] for c in d['collectives']], \
     sum(c['kind'] == 'all-to-all' for c in json.load(open('moe.out.json'))['collectives'])")"

# The text report names the textbook strategy and the collective.
"$shardlab" teach "$repo/examples/teach/mlp.json" > mlp.txt
check "text report" "textbook: Megatron tensor parallel on 'x' (column- then row-parallel, all-reduce after)" \
  "$(grep '^textbook:' mlp.txt)"
check "text report collective" "y            forward   f:x               all-reduce on x of 8.39 MB (partial sums over f, 151.8 us)" \
  "$(grep '^y ' mlp.txt)"

# --force: "why not data parallel here?"
"$shardlab" teach "$repo/examples/teach/mlp.json" --force h=b:x --force y=b:x --json > forced.json
check "force" "True b:x 366929 True" \
  "$(field forced.json "d['ops']['h']['forced'], d['ops']['h']['strategy'], d['force']['free_cost'], d['force']['difference'] == d['cost'] - 366929 and d['cost'] > 366929")"

# Errors: exit codes and exact messages.
printf '{"name": "bad", "mesh": {"shape": [8], "bandwidth_GBps": 100, "latency_us": 5,\n  "device_tflops": 100},\n "tensors": {"x": {"shape": [4, 4]}},\n "ops": [{"name": "h", "einsum": "ab,bc->ac", "inputs": ["x"]}]}\n' > bad.json
"$shardlab" teach bad.json > /dev/null 2> err.txt
check "bad model exit code" 2 $?
check "bad model message" "shardlab: bad.json:4:34 (byte 175): at ops[0].einsum: expected 1 operand subscript (one per input), found 2" \
  "$(cat err.txt)"
"$shardlab" teach missing.json 2> err.txt
check "missing file exit code" 4 $?
check "missing file message" "shardlab: missing.json: cannot open the file (No such file or directory)" \
  "$(cat err.txt)"
ln -s /dev/zero zero.json
"$shardlab" teach zero.json 2> err.txt
check "a link to /dev/zero exit code" 2 $?
check "a link to /dev/zero" "shardlab: zero.json: expected a teaching model of at most 16777216 bytes (16 MiB), found more than 16777216 bytes (it is not a regular file: a device or a pipe?)" \
  "$(cat err.txt)"
# One argument grammar: --force=NODE=STRATEGY is --force NODE=STRATEGY.
"$shardlab" teach "$repo/examples/teach/mlp.json" --force=h=b:x --force y=b:x --json --time-limit=10 > forced2.json
check "--k=v is --k v" "$(field forced.json "d['cost']")" "$(field forced2.json "d['cost']")"
"$shardlab" teach "$repo/examples/teach/mlp.json" --jsn 2> err.txt
check "unknown flag exit code" 1 $?
check "unknown flag" "shardlab: teach: --jsn needs a value" "$(head -n 1 err.txt)"
"$shardlab" teach "$repo/examples/teach/mlp.json" --force h=z:x 2> err.txt
check "bad force exit code" 1 $?
check "bad force message" "shardlab: teach: --force 'h=z:x': expected LETTER:AXIS with a letter of \"bdf\", found 'z:x'; its strategies are replicated, b:x, d:x, f:x" \
  "$(cat err.txt)"
"$shardlab" teach "$repo/examples/teach/mlp.json" --cost-model fast 2> err.txt
check "bad cost model" "1 shardlab: teach: unknown cost model 'fast' (expected alpha-beta, bandwidth or communication)" \
  "$? $(cat err.txt)"
sed 's/"device_memory_GB": 1}/"device_memory_GB": 0.2}/' "$repo/examples/teach/zero.json" > tight.json
"$shardlab" teach tight.json --time-limit 2 2> err.txt
check "no plan fits exit code" 3 $?
"$shardlab" teach --help | head -n 1 > help.txt
check "help" "usage: shardlab teach MODEL.json [--emit INSTANCE.json] [--jax FILE.py] [--time-limit S] [--json]" "$(cat help.txt)"

finish "teach CLI"
