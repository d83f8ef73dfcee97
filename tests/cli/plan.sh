#!/usr/bin/env bash
# End-to-end checks of `shardlab plan`: the --json document's fields (every
# one the issue lists, each device's memory, model.kind), memory equal to
# ZeRO's and Korthikanti's formulas, a published --fix reproduced, the free
# plan's gap and t within a node, a model that fits nowhere saying what it
# needs, config.json models, the Megatron export, and the exact errors and
# exit codes. Searches run on --work budgets (deterministic, no clock).
# Usage: plan.sh PATH/TO/shardlab REPO_DIR
source "$(dirname "$0")/lib.bash" "$@"

# A published row of Narayanan et al. (Table 1: 1.7B on 32 GPUs, batch 512)
# with every decision pinned.
"$shardlab" plan gpt-1.7b --gpus 32 --global-batch 512 --work 20000 --no-sizing \
  --fix tp=1,pp=1,dp=32,zero=0,mbs=1,recompute=none,schedule=1f1b --json > fixed.json
check "fixed: exit code" 0 $?
check "fixed: the document's fields" \
  "format version model cluster training fix found plan step_time_s tokens_per_s tflops_per_gpu mfu memory breakdown_s lower_bound_s gap proven alternatives sizing devices critical_device layout timeline search
plan: tp pp dp ep vpp schedule microbatch_size microbatches recompute sequence_parallel zero lean_layout stages
memory: parameters gradients optimizer gathered_parameters activations activation_per_layer_bytes peak limit device
breakdown_s: compute tp_comm dp_comm pp_bubble p2p
devices[0].memory: parameters gradients optimizer gathered_parameters activations peak
model: name kind layers hidden heads experts parameters" \
  "$(python3 - <<'PY'
import json
d = json.load(open('fixed.json'))
print(' '.join(d))
for k in ('plan', 'memory', 'breakdown_s'):
    print(k + ': ' + ' '.join(d[k]))
print('devices[0].memory: ' + ' '.join(d['devices'][0]['memory']))
print('model: ' + ' '.join(d['model']))
PY
)"
# ZeRO-0 keeps 2 + 2 + 12 bytes per parameter (the tied head held once);
# Korthikanti: s b h (34 + 5 a s / h) bytes per layer for one sequence.
check "fixed: plan, formulas, throughput" \
  "1 1 32 1F1B 1 16 none [24] transformer
2psi=True 2psi=True 12psi=True per_layer=663748608=True
peak=sum=True device0=worst=True tokens=True tflops=True gap<=2%=True" \
  "$(python3 - <<'PY'
import json
d = json.load(open('fixed.json'))
p, m, n = d['plan'], d['memory'], d['model']['parameters']
print(p['tp'], p['pp'], p['dp'], p['schedule'], p['microbatch_size'], p['microbatches'],
      p['recompute'], p['stages'], d['model']['kind'])
s, b, h, a = 2048, 1, 2304, 24
korthikanti = s * b * h * 34 + 5 * a * s * s * b
print(f"2psi={m['parameters'] == 2 * n} 2psi={m['gradients'] == 2 * n} "
      f"12psi={m['optimizer'] == 12 * n} "
      f"per_layer={m['activation_per_layer_bytes']}={m['activation_per_layer_bytes'] == korthikanti}")
dev = d['devices'][0]['memory']
flops = 72 * 512 * s * 24 * h * h * (1 + s / (6 * h) + 51200 / (12 * 24 * h))  # no recompute
print(f"peak=sum={m['peak'] == m['parameters'] + m['gradients'] + m['optimizer'] + m['activations']}",
      f"device0=worst={dev['peak'] == m['peak']}",
      f"tokens={abs(d['tokens_per_s'] * d['step_time_s'] - 512 * 2048) < 1e-3}",
      f"tflops={abs(d['tflops_per_gpu'] * 1e12 * d['step_time_s'] * 32 / flops - 1) < 0.01}",
      f"gap<=2%={d['gap'] <= 0.02 and d['lower_bound_s'] <= d['step_time_s']}")
PY
)"

# The free plan on 8 nodes: t within a node, bound below the step, ZeRO-1's
# optimizer bytes when it picks it; alternatives name their pins.
"$shardlab" plan gpt3-175b --gpus 64 --global-batch 1536 --work 100000 --no-sizing --json \
  > free.json
check "free: exit code" 0 $?
check "free: t within a node, bound <= step, stages add up, alternatives" \
  "True True True True True" \
  "$(python3 - <<'PY'
import json
d = json.load(open('free.json'))
p = d['plan']
print(p['tp'] <= 8, d['lower_bound_s'] <= d['step_time_s'] * (1 + 1e-12),
      sum(p['stages']) == 96 and len(p['stages']) == p['pp'] * p['vpp'],
      p['tp'] * p['pp'] * p['dp'] == 64,
      all(('step_time_s' in a) == a['fits'] for a in d['alternatives']) and
      any(a['name'] == 'pure data parallelism' and not a['fits'] and
          a['reason'].startswith('needs ') for a in d['alternatives']))
PY
)"

# A model that fits nowhere says what it would need (exit 3), in text and JSON.
"$shardlab" plan gpt-1t --gpus 8 --global-batch 64 --no-alternatives > nofit.txt
check "no fit: exit code" 3 $?
check "no fit: what it needs" "no plan fits: needs" "$(sed -n 3p nofit.txt | cut -c1-19)"
check "no fit: the GPU and the smallest count" "the GPU has 80.0 GB; fits on 256 GPUs" \
  "$(sed -n 3p nofit.txt | sed 's/.*), //')"
"$shardlab" plan gpt-1t --gpus 8 --global-batch 64 --no-alternatives --no-sizing --json \
  > nofit.json
check "no fit: JSON" "False None True" \
  "$(python3 -c "import json; d = json.load(open('nofit.json')); \
print(d['found'], d['plan'], d['needs_bytes'] > 80e9)")"

# A Hugging Face config.json and a cluster file.
"$shardlab" plan "$repo/examples/plan/models/llama3-8b.json" \
  --cluster "$repo/examples/plan/clusters/dgx-a100-80gb-8-nodes.json" --global-batch 512 \
  --work 100000 --no-alternatives --no-sizing --json > llama.json
check "config.json: exit code" 0 $?
check "config.json: model and cluster" "llama3-8b transformer 32 64 True" \
  "$(python3 -c "import json; d = json.load(open('llama.json')); \
print(d['model']['name'], d['model']['kind'], d['model']['layers'], d['cluster']['gpus'], \
      d['found'])")"

# A teaching-lab einsum model with a repeated block (GPT-J's parallel layer,
# 28 times): its parts solved by the sharding solver, kind "einsum".
"$shardlab" plan "$repo/examples/plan/models/parallel_block.json" --gpus 16 --global-batch 256 \
  --work 100000 --no-alternatives --no-sizing --json > einsum.json
check "einsum: exit code" 0 $?
check "einsum: model, stages, memory" "gptj_parallel_block einsum 28 True True True" \
  "$(python3 -c "import json; d = json.load(open('einsum.json')); p = d['plan']; m = d['memory']; \
print(d['model']['name'], d['model']['kind'], sum(p['stages']), p['tp'] * p['pp'] * p['dp'] == 16, \
      m['peak'] == m['parameters'] + m['gradients'] + m['optimizer'] + m['gathered_parameters'] \
        + m['activations'], \
      d['lower_bound_s'] <= d['step_time_s'] * (1 + 1e-9))")"

# The Megatron-LM export of a pinned plan.
"$shardlab" plan gpt-1.7b --gpus 32 --global-batch 512 --work 2000 \
  --fix tp=2,pp=2,dp=8,mbs=2,recompute=selective,sp=on,zero=1,schedule=1f1b --export megatron \
  > megatron.txt
check "export: exit code" 0 $?
check "export: Megatron-LM arguments" \
  "--tensor-model-parallel-size 2 --pipeline-model-parallel-size 2 --sequence-parallel --micro-batch-size 2 --global-batch-size 512 --recompute-granularity selective --use-distributed-optimizer" \
  "$(grep -E '^--(tensor|pipeline|sequence|micro|global|recompute-gran|use-dist)' megatron.txt \
     | sed 's/ \\$//' | tr '\n' ' ' | sed 's/ $//')"

# Errors: one line, the exit code of the other commands.
err() { "$shardlab" plan "$@" 2>&1 >/dev/null | head -n 1; }
"$shardlab" plan gpt-1.7b > /dev/null 2>&1
check "no batch: exit code" 1 $?
check "no batch: message" "shardlab: plan: plan needs --global-batch B" "$(err gpt-1.7b)"
check "unknown preset" \
  "shardlab: plan: MODEL 'gpt-2b' is no file, and model preset: expected one of gpt-1.7b, gpt-3.6b, gpt-7.5b, gpt-18.4b, gpt-39.1b, gpt-76.1b, gpt-145.6b, gpt-310.1b, gpt-529.6b, gpt-1t, gpt3-175b, llama3-8b, llama3-70b, llama3-405b, mixtral-8x7b, bloom-176b, found \"gpt-2b\" (did you mean \"gpt-1t\"?)" \
  "$(err gpt-2b --global-batch 8)"
check "bad --fix key" \
  "shardlab: plan: --fix: at 'bogus=1': expected one of the keys tp, pp, dp, ep, vpp, sp, zero, schedule, mbs, microbatches, recompute, layers" \
  "$(err gpt-1.7b --global-batch 8 --fix tp=2,bogus=1)"
check "unsatisfiable --fix" "shardlab: plan: tp=3 = 3 GPUs does not divide the cluster's 8" \
  "$(err gpt-1.7b --global-batch 8 --fix tp=3)"
printf '{"model_type": "llama",\n "hidden_size": "x"}\n' > bad_model.json
"$shardlab" plan bad_model.json --global-batch 8 > /dev/null 2>&1
check "malformed config: exit code" 2 $?
check "malformed config: position and path" \
  "shardlab: bad_model.json:2:17 (byte 40): at hidden_size: expected an integer, found the string \"x\"" \
  "$(err bad_model.json --global-batch 8)"
printf '{"nodes": 2, "gpus_per_node": 8, "gpu": {"peak_tflops": -1}}' > bad_cluster.json
"$shardlab" plan gpt-1.7b --global-batch 8 --cluster bad_cluster.json > /dev/null 2>&1
check "malformed cluster: exit code" 2 $?
check "--gpus not a count" \
  "shardlab: plan: --gpus takes an integer from 1 to 1048576, found 'eight'" \
  "$(err gpt-1.7b --global-batch 8 --gpus eight)"
check "the shared argument grammar: a misspelt option" \
  "shardlab: plan: unknown option --gpu (did you mean --gpus?)" \
  "$(err gpt-1.7b --global-batch 8 --gpu 8)"
check "the shared argument grammar: a flag with a value" \
  "shardlab: plan: --sweep takes no value (found --sweep=1)" \
  "$(err gpt-1.7b --global-batch=8 --sweep=1)"
check "--global-batch beyond int64 is refused, not clamped" \
  "shardlab: plan: --global-batch takes an integer from 1 to 16777216, found '99999999999999999999'" \
  "$(err gpt-1.7b --global-batch 99999999999999999999)"
check "--seq out of range" \
  "shardlab: plan: --seq takes an integer from 1 to 8388608, found '16777216'" \
  "$(err gpt-1.7b --global-batch 8 --seq 16777216)"
# Files: the system's reason and exit 4; a device read only up to the cap.
mkdir -p a_directory.json
"$shardlab" plan a_directory.json --global-batch 8 > /dev/null 2>&1
check "directory: exit code" 4 $?
check "directory: message" "shardlab: a_directory.json: cannot read the file (Is a directory)" \
  "$(err a_directory.json --global-batch 8)"
check "missing model file" "shardlab: ./missing.json: cannot open the file (No such file or directory)" \
  "$(err ./missing.json --global-batch 8)"
check "missing cluster file" "shardlab: gone.json: cannot open the file (No such file or directory)" \
  "$(err gpt-1.7b --global-batch 8 --cluster gone.json)"
ln -sf /dev/zero zeros.json
check "endless model file" \
  "shardlab: zeros.json: expected a model (config.json or einsum model) of at most 16777216 bytes (16 MiB), found more than 16777216 bytes (it is not a regular file: a device or a pipe?)" \
  "$(err zeros.json --global-batch 8)"

finish "plan CLI"
