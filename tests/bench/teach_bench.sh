#!/usr/bin/env bash
# Time to proof of the teaching lab's instances: for every example and
# held-out model, `shardlab teach --json` (which solves with the exact branch
# and bound on cores of up to 200 nodes; `shardlab eval` re-checks its plan
# on the emitted instance) and `shardlab solve` on the emitted
# instance with the solver's defaults; then the transformer block stacked 6
# and 12 times (84 and 168 ops); then the plan lab's blocks
# (tests/bench/plan_block_bench.cpp: every GPT layer, embedding and head of
# Narayanan et al.'s Table 1 at tp 1-8, Llama 3 70B, Mixtral with ep), with
# their solve times. Prints tables; never fails on time.
# Usage: tests/bench/teach_bench.sh [TIME_LIMIT_S]
set -euo pipefail
cd "$(dirname "$0")/../.."
limit="${1:-10}"
cmake --preset native >/dev/null
cmake --build --preset native -j 2 --target shardlab shardlab_core >/dev/null
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf '| model | ops | nodes | edges | strategies | cost (ns) | bound (ns) | proven | eval | teach: s to proof | solve (defaults): s to proof | textbook |\n'
printf '|---|---|---|---|---|---|---|---|---|---|---|---|\n'
# Beyond the bar (at most 50 ops): the transformer block stacked 6 and 12 times.
for blocks in 6 12; do
  python3 - "$blocks" "$tmp/stack$blocks.json" <<'PY'
import json, sys
blocks = int(sys.argv[1])
t = json.load(open('examples/teach/transformer.json'))
params = [k for k, v in t['tensors'].items() if v.get('parameter')]
tensors, ops, prev = {'x': t['tensors']['x']}, [], 'x'
for layer in range(1, blocks + 1):
    rename = {p: f'{p}_{layer}' for p in params}
    rename.update({o['name']: f"{o['name']}{layer}" for o in t['ops']})
    rename['x'] = prev
    tensors.update({rename[p]: t['tensors'][p] for p in params})
    ops += [dict(o, name=rename[o['name']], inputs=[rename.get(i, i) for i in o['inputs']]) for o in t['ops']]
    prev = rename['r2']
t.update(name=f'stack_of_{blocks}_blocks', tensors=tensors, ops=ops)
t.pop('description')
json.dump(t, open(sys.argv[2], 'w'))
PY
done
for model in examples/teach/*.json examples/teach/heldout/*.json "$tmp"/stack*.json; do
  name=$(basename "$model" .json)
  build/native/shardlab teach "$model" --time-limit "$limit" --emit "$tmp/$name.inst.json" --json \
    > "$tmp/$name.out.json"
  solve_line=$(build/native/shardlab solve "$tmp/$name.inst.json" --time-limit "$limit" | grep -E '^# (optimal|best):' || true)
  python3 -c "import json, sys; print(json.load(open(sys.argv[1]))['plan'])" "$tmp/$name.out.json" > "$tmp/$name.plan.txt"
  eval_line=$(build/native/shardlab eval "$tmp/$name.inst.json" "$tmp/$name.plan.txt" | tr '\n' ' ')
  python3 - "$model" "$tmp/$name.out.json" "$solve_line" "$eval_line" <<'PY'
import json, re, sys
model = json.load(open(sys.argv[1]))
d = json.load(open(sys.argv[2]))
m = re.search(r'^# (optimal|best): .* ([0-9.]+) s', sys.argv[3])
solve = (m.group(2) if m.group(1) == 'optimal' else f'not proven ({m.group(2)})') if m else 'no plan'
roles = ', '.join(f"{a}: {v['role']}" for a, v in d['axes'].items())
evaluated = 'ok' if sys.argv[4].startswith(f"cost {d['cost']} verdict feasible") else sys.argv[4]
print(f"| {d['model']} | {len(model['ops'])} | {d['instance']['nodes']} | {d['instance']['edges']} | "
      f"{d['instance']['strategies']} | {d['cost']} | {d['lower_bound']} | "
      f"{'yes' if d['proven_optimal'] else 'no'} | {evaluated} | {d['seconds']:.3f} | {solve} | {roles} |")
PY
done

# The plan lab's blocks, built against the native core library.
echo
g++ -std=c++20 -O2 -I. -Ibuild/native/deps-include tests/bench/plan_block_bench.cpp \
  build/native/libshardlab_core.a -lz -lpthread -o "$tmp/plan_block_bench"
"$tmp/plan_block_bench"
