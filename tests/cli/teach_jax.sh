#!/usr/bin/env bash
# `shardlab teach --jax FILE`: the layout as a runnable JAX script, the same
# text as the --json report's "jax" (which the page shows). For every
# example and held-out model: Python parses it, it builds one Mesh from
# jax.devices() in the model's shape and axis names and one
# NamedSharding(mesh, P(...)) per tensor whose specs are the report's
# partition_specs, and it runs against stand-ins for jax and numpy that
# raise where JAX would (tests/cli/jax_check.py; the machine has no JAX).
# Forced layouts are said to be forced, the others chosen by the solver.
# Usage: teach_jax.sh PATH/TO/shardlab REPO_DIR
source "$(dirname "$0")/lib.bash" "$@"
checker="$repo/tests/cli/jax_check.py"

# compare NAME: the script's structure against the report (one python call).
compare() {
  python3 - "$1" "$checker" <<'PY'
import json, subprocess, sys
name, checker = sys.argv[1], sys.argv[2]
report = json.load(open(f'{name}.json'))
script = open(f'{name}.py').read()
run = subprocess.run([sys.executable, checker, f'{name}.py'], capture_output=True, text=True)
if run.returncode:
    print('checker failed:', run.stderr.strip().splitlines()[-1:])
    sys.exit(0)
got = json.loads(run.stdout)
def spec_text(entries):
    def one(e):
        if e is None: return 'None'
        if isinstance(e, str): return repr(e)
        return '(' + ', '.join(repr(a) for a in e) + ')'
    return 'P(' + ', '.join(one(e) for e in entries) + ')'
specs = {k: spec_text(v) for k, v in got['specs'].items()}
forced = sorted(k for k, w in got['who'].items() if w.split('; ')[-1].startswith('forced by the user'))
print(script == report['jax'],
      got['mesh_shape'] == report['mesh']['shape'], got['axes'] == report['mesh']['axes'],
      specs == report['partition_specs'], len(got['printed']) == len(specs),
      ','.join(forced) or '-')
PY
}

models=()
for f in "$repo"/examples/teach/*.json "$repo"/examples/teach/heldout/*.json; do models+=("$f"); done
for model in "${models[@]}"; do
  name=$(basename "$model" .json)
  "$shardlab" teach "$model" --jax "$name.py" --json > "$name.json"
  check "$name exit code" 0 $?
  check "$name: --jax is the report's jax; mesh, axes and specs as reported; it runs; nothing forced" \
    "True True True True True -" "$(compare "$name")"
done

# The MLP's script, line by line where it matters.
check "mlp header" "# Chosen by the solver: all 6 layouts below." "$(grep '^# Chosen' mlp.py)"
check "mlp mesh" "mesh = Mesh(np.array(devices[:8]).reshape(8), ('x',))" "$(grep '^mesh = ' mlp.py)"
check "mlp W1" "    'W1': NamedSharding(mesh, P(None, 'x')),  # parameter; chosen by the solver: f:x" \
  "$(grep "^    'W1': NamedSharding" mlp.py)"
check "mlp shapes" "    'x': ((4096, 1024), jnp.bfloat16)," "$(grep "^    'x': ((" mlp.py)"
check "transformer mesh" "mesh = Mesh(np.array(devices[:8]).reshape(2, 4), ('data', 'model'))" \
  "$(grep '^mesh = ' transformer.py)"

# Forced layouts are named as forced, in the header and on their lines.
"$shardlab" teach "$repo/examples/teach/mlp.json" --force h=b:x --force W2=replicated \
  --jax forced.py --json > forced.json
check "forced: the same checks" "True True True True True W2,h" "$(compare forced)"
check "forced header (in the model's order)" "# Forced by the user: W2 = replicated, h = b:x.
# The solver chose the rest (4 of 6 layouts below; each line says which)." \
  "$(grep -E '^# (Forced|The solver)' forced.py)"
check "forced line" "    'h': NamedSharding(mesh, P('x', None)),  # einsum bd,df->bf; forced by the user: b:x" \
  "$(grep "^    'h': NamedSharding" forced.py)"

# Too few devices: the script says so instead of failing in reshape.
python3 "$checker" mlp.py 4 > /dev/null 2> err.txt
check "too few devices exit code" 1 $?
check "too few devices" "this layout needs 8 devices; JAX sees 4" "$(tail -n 1 err.txt)"

# A file that cannot be written: the CLI's file error, exit code 4.
"$shardlab" teach "$repo/examples/teach/mlp.json" --jax /nonexistent/dir/x.py > /dev/null 2> err.txt
check "unwritable --jax exit code" 4 $?

finish "teach --jax"
