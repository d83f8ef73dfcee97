#!/usr/bin/env bash
# End-to-end checks of `shardlab pipeline`: the bad-input corpus (exact
# message, exit 2), command-line errors (exit 1), unreadable files (exit 4),
# the table and the schedule JSON of the examples, every schedule the CLI
# writes re-checked here from its JSON alone (dependencies, one op at a time
# per device, memory within the cap), Chrome trace, PyTorch CSV round trips
# and the CSV reader's cell-precise errors, --check of edited schedules,
# memory caps (exit 3) and --plan. Usage: pipeline.sh PATH/TO/shardlab REPO_DIR
source "$(dirname "$0")/lib.bash" "$@"
examples="$repo/examples/pipeline"

# Schedules to re-check from their own fields, all at once at the end (one
# python start): every op's deps end before it starts, no two ops of a
# device overlap, the memory track stays within the cap (minus parameters),
# the last end is the makespan, and the file says it is valid.
mkdir -p recheck
queued=0
recheck() {  # recheck FILE LABEL
  queued=$((queued + 1))
  cp "$1" "recheck/$queued.json"
  echo "$2" > "recheck/$queued.label"
}
run_rechecks() {
  python3 - recheck <<'EOF'
import glob, json, os, sys
bad = 0
for path in sorted(glob.glob(os.path.join(sys.argv[1], '*.json'))):
    s = json.load(open(path))
    label = open(path[:-5] + '.label').read().strip()
    ops = s['ops']
    problems = []
    if not s['valid'] or s['violations']:
        problems.append('marked invalid: %s' % s['violations'])
    for op in ops:
        for d in op['deps']:
            if ops[d]['end'] > op['start'] + 1e-9:
                problems.append('op %d starts at %s before its input op %d ends at %s' % (op['id'], op['start'], d, ops[d]['end']))
    by_device = {}
    for op in ops:
        by_device.setdefault(op['device'], []).append(op)
    for d, lst in by_device.items():
        lst.sort(key=lambda o: (o['start'], o['end']))
        for a, b in zip(lst, lst[1:]):
            if b['start'] < a['end'] - 1e-9:
                problems.append('device %d runs ops %d and %d at once' % (d, a['id'], b['id']))
    cap = s['mem_cap']
    if cap is not None:
        caps = cap if isinstance(cap, list) else [cap] * len(s['memory'])
        for d, track in enumerate(s['memory']):
            if max(track['activation']) + s['peak_parameter'][d] > caps[d] + 1e-9:
                problems.append('device %d goes over its cap' % d)
    if abs(max(o['end'] for o in ops) - s['makespan']) > 1e-9:
        problems.append('makespan differs from the last end')
    if problems:
        bad += 1
        print('FAIL recheck %s: %s' % (label, problems[0]))
print('rechecked %d schedules, %d bad' % (len(glob.glob(os.path.join(sys.argv[1], '*.json'))), bad))
EOF
}

# ---- the bad-input corpus: exact message, exit code 2 ----
for file in "$repo"/tests/cli/pipeline_bad_inputs/*.json; do
  name=$(basename "$file")
  cp "$file" "$name"
  actual=$("$shardlab" pipeline "$name" 2>&1 >/dev/null)
  code=$?
  check "corpus $name exit code" 2 "$code"
  check "corpus $name message" "$(cat "${file%.json}.expected")" "$actual"
done

# ---- command-line errors: exit 1 ----
"$shardlab" pipeline --stages 0 --microbatches 4 2>err.txt
check "--stages 0 exit" 1 $?
check "--stages 0 message" "shardlab: pipeline: --stages needs an integer from 1 to 1024, got '0'" \
  "$(head -n 1 err.txt)"
"$shardlab" pipeline --stages 4 2>err.txt
check "missing --microbatches" "shardlab: pipeline: give a problem file or --microbatches M" \
  "$(head -n 1 err.txt)"
"$shardlab" pipeline --stages 4 --microbatches 8 --schedule ZB-H3 2>err.txt
check "unknown schedule exit" 1 $?
check "unknown schedule" "shardlab: pipeline: unknown schedule 'ZB-H3' (known: GPipe, 1F1B, Interleaved1F1B, ZB-H1, ZB-H2, ZBV, DualPipe, DualPipeV, Chimera, torch:Interleaved1F1B, torch:InterleavedZeroBubble, torch:ZBVZeroBubble, torch:DualPipeV, list)" \
  "$(cat err.txt)"
"$shardlab" pipeline --stages 5 --microbatches 20 --schedule DualPipe 2>err.txt
check "DualPipe odd devices exit" 1 $?
check "DualPipe odd devices" "shardlab: pipeline: DualPipe needs an even number of devices; p = 5" \
  "$(cat err.txt)"
check "DualPipe too few micro-batches" \
  "shardlab: pipeline: DualPipe needs at least 2 p = 16 micro-batches; m = 12" \
  "$("$shardlab" pipeline --stages 8 --microbatches 12 --schedule dualpipe 2>&1)"
check "keep above act from flags" "shardlab: pipeline: stage 0: keep exceeds act" \
  "$("$shardlab" pipeline --stages 2 --microbatches 2 --keep 2 2>&1 | head -n 1)"
check "two actions" \
  "shardlab: pipeline: choose one of --schedule, --compare, --list, --plan, --import-csv, --check, --normalize" \
  "$("$shardlab" pipeline --stages 2 --microbatches 2 --compare --list 2>&1 | head -n 1)"
check "planner option without --plan" "shardlab: pipeline: --seed is a planner option; add --plan" \
  "$("$shardlab" pipeline --stages 2 --microbatches 2 --seed 3 2>&1 | head -n 1)"
check "unknown option" "shardlab: pipeline: unknown option --frobnicate" \
  "$("$shardlab" pipeline --stages 2 --microbatches 2 --frobnicate 1 2>&1 | head -n 1)"
check "share flags on an operator graph" \
  "shardlab: pipeline: --F, --B, --W, --FB, --act, --keep, --param and --transformer set a uniform problem; $examples/moe_layer.json lists its operators" \
  "$("$shardlab" pipeline "$examples/moe_layer.json" --F 2 2>&1 | head -n 1)"
"$shardlab" pipeline missing.json 2>err.txt
check "unreadable file exit" 4 $?
check "unreadable file" "shardlab: missing.json: cannot open the file (No such file or directory)" \
  "$(cat err.txt)"
mkdir folder.json
"$shardlab" pipeline folder.json 2>err.txt
check "a folder exit" 4 $?
check "a folder" "shardlab: folder.json: cannot read the file (Is a directory)" "$(cat err.txt)"
ln -s /dev/zero zero.json
"$shardlab" pipeline zero.json 2>err.txt
check "a link to /dev/zero exit" 2 $?
check "a link to /dev/zero" "shardlab: zero.json: expected a pipeline problem of at most 16777216 bytes (16 MiB), found more than 16777216 bytes (it is not a regular file: a device or a pipe?)" \
  "$(cat err.txt)"
check "--k=v is --k v" "$("$shardlab" pipeline --stages 2 --microbatches 3 --schedule ZB-H1 --json)" \
  "$("$shardlab" pipeline --stages=2 --microbatches=3 --schedule=ZB-H1 --json)"
check "a flag takes no value" "shardlab: pipeline: --json takes no value (found --json=yes)" \
  "$("$shardlab" pipeline --stages 2 --microbatches 2 --json=yes 2>&1 | head -n 1)"
check "an option given twice" "shardlab: pipeline: --stages is given twice" \
  "$("$shardlab" pipeline --stages 2 --stages 3 --microbatches 2 2>&1 | head -n 1)"

# ---- serial links: one transfer at a time from a device to another ----
"$shardlab" pipeline --stages 2 --microbatches 2 --links both 2> err.txt
check "--links both exit" 1 $?
check "--links both" "shardlab: pipeline: --links takes parallel or serial, not 'both'" "$(cat err.txt)"
# GPipe on 2 devices, 4 micro-batches, delay 2: device 0's forwards end 1
# apart, so on a serial link they arrive 2 apart (3, 5, 7, 9) and the step
# takes 22 instead of 19.
for links in parallel serial; do
  "$shardlab" pipeline --stages 2 --microbatches 4 --comm 2 --links $links --schedule GPipe \
    --json > "gpipe_$links.json"
  recheck "gpipe_$links.json" "GPipe, $links links"
done
check "GPipe makespans on parallel and serial links" "19 22" \
  "$(python3 -c 'import json, sys; print(*[json.load(open(f))["makespan"] for f in sys.argv[1:]])' \
    gpipe_parallel.json gpipe_serial.json)"
# The planner on serial links: DualPipe's example at 4 ranks with F&B 2.5 and
# delay 0.5. Its schedule passes the checker there, and the DualPipe example's
# best schedule on parallel links (a pair sends two results on one link at
# once) does not.
"$shardlab" pipeline --stages 4 --microbatches 8 --FB 2.5 --comm 0.5 --mem-cap 5 \
  --placement bidirectional --links serial --plan --work 20000 --json > serial_plan.json
check "serial plan exit" 0 $?
recheck serial_plan.json "planned on serial links"
"$shardlab" pipeline --stages 4 --microbatches 8 --FB 2.5 --comm 0.5 --mem-cap 5 \
  --placement bidirectional --links serial --check serial_plan.json > /dev/null
check "serial plan re-checked" 0 $?
# Before any search the best on serial links is a published schedule, ZBV's
# (74; DualPipe's 72.5 takes 78 there), and the planner says so.
check "serial plan from a published schedule" "74 ZBV" \
  "$("$shardlab" pipeline "$examples/dualpipe_example.json" --FB 2.5 --comm 0.5 --links serial \
    --plan --work 1000 --json 2> /dev/null |
    python3 -c 'import json, sys; d = json.load(sys.stdin); print(d["makespan"], d["planner"]["best_source"])')"
"$shardlab" pipeline "$examples/dualpipe_example.json" --FB 2.5 --comm 0.5 --links serial \
  --check "$repo/tests/data/pipeline/dualpipe_fb2.5_comm0.5_64.json" > /dev/null 2> err.txt
check "parallel-link schedule on serial links exit" 3 $?
check "parallel-link schedule on serial links" \
  "  $repo/tests/data/pipeline/dualpipe_fb2.5_comm0.5_64.json:238:1 (byte 23949): at ops[237]: B3 stage 4 copy 0 starts at 27.5 but its input B3 stage 5 copy 0 ends at 27 and, sent after the results before it on the link from device 5 to device 4, arrives at 28" \
  "$(sed -n 2p err.txt)"
# Schedules the order walk found on serial links (order_walk_bench --links
# serial, README): valid there, at 61 with comm 0.25 and 64 with comm 0.5.
for kept in 0.25:61 0.5:64; do
  comm=${kept%%:*} makespan=${kept##*:}
  check "serial-link schedule, comm $comm" "makespan $makespan
check: valid" "$("$shardlab" pipeline "$examples/dualpipe_example.json" --FB 2.5 --comm "$comm" \
    --links serial --check "$repo/tests/data/pipeline/dualpipe_fb2.5_comm${comm}_serial_$makespan.json" |
    grep -E '^makespan|^check:' | cut -d' ' -f1-2)"
done

# ---- the table (1F1B on the 1F1B-style example) ----
"$shardlab" pipeline "$examples/uniform_4x8.json" > table.txt
check "table exit" 0 $?
check "table head" "1F1B on 4 devices, 8 micro-batches, uniform (a device's share: F 1, B 1, W 1, F&B 3, act 1), comm 0, no memory cap; linear placement of 4 stages
makespan 33" "$(head -n 2 table.txt)"
check "table closed form" \
  "closed form: (p-1)(F+B+W) = 9 (global idle, largest over devices; assumes identical stages, no communication delay): holds, simulated the same" \
  "$(grep '^closed form' table.txt)"
check "table device 1" "     1         24            9            6          3          0" \
  "$(sed -n 5p table.txt)"

# ---- the schedule JSON of every schedule on the examples, re-checked ----
written=0
for problem in "$examples"/*.json; do
  for schedule in GPipe 1F1B Interleaved1F1B ZB-H1 ZB-H2 ZBV DualPipe DualPipeV Chimera list \
      torch:Interleaved1F1B torch:InterleavedZeroBubble torch:ZBVZeroBubble torch:DualPipeV; do
    "$shardlab" pipeline "$problem" --schedule "$schedule" --json > s.json 2>err.txt
    code=$?
    if [ $code -eq 0 ]; then
      recheck s.json "$(basename "$problem") $schedule"
      written=$((written + 1))
    elif [ $code -ne 1 ] && [ $code -ne 3 ]; then
      check "$(basename "$problem") $schedule exit" "0, 1 or 3" "$code: $(cat err.txt)"
    elif [ -s s.json ]; then
      check "$(basename "$problem") $schedule writes nothing when it fails" "" "$(cat s.json)"
    fi
  done
done
check "schedules written and re-checked" 39 "$written"
# Uniform problems with delays, caps, keep and parameters too.
for flags in "--stages 4 --microbatches 8 --comm 0.5" "--stages 6 --microbatches 12 --F 1 --B 2 --W 1 --keep 0.5 --param 1" \
  "--stages 4 --microbatches 16 --F 2 --B 3 --W 1 --FB 4 --comm 0.25 --chunks 4" "--stages 8 --microbatches 16 --mem-cap 9"; do
  for schedule in GPipe 1F1B Interleaved1F1B ZB-H1 ZB-H2 ZBV DualPipe DualPipeV Chimera list; do
    # shellcheck disable=SC2086
    if "$shardlab" pipeline $flags --schedule "$schedule" --json > s.json 2>/dev/null; then
      recheck s.json "$flags $schedule"
    fi
  done
done

python3 - > fields.txt <<EOF
import json, subprocess
s = json.loads(subprocess.run(['$shardlab', 'pipeline', '$examples/dualpipe_example.json', '--schedule', 'DualPipe', '--json'], capture_output=True, text=True).stdout)
fb = [o for o in s['ops'] if o['kind'] == 'FB']
print(s['format'], s['version'], s['name'], s['makespan'], s['bubble']['global'], s['bubble']['span'],
      s['peak_activation'], s['problem']['copies'], len(s['ops']), len(fb), fb[0]['backward'],
      s['closed_form']['holds'], s['closed_form']['value'], s['closed_form']['peak_activation_value'])
EOF
check "DualPipe JSON fields" "shardlab-pipeline-schedule 1 DualPipe 66 [6, 6, 6, 6, 6, 6, 6, 6] [6, 5, 4, 3, 3, 4, 5, 6] [9, 9, 9, 9, 9, 9, 9, 9] 2 282 82 {'stage': 7, 'chunk': 0, 'direction': 1, 'microbatch': 13} True 6 9" \
  "$(cat fields.txt)"

# ---- --compare ----
"$shardlab" pipeline "$examples/dualpipe_example.json" --compare > compare.txt
check "compare rows" 16 "$(wc -l < compare.txt)"
check "compare DualPipe row" \
  "DualPipe                            66           6         6        9         0  (PP/2-1)(F&B+B-3W) = 6 (holds)           valid" \
  "$(grep '^DualPipe ' compare.txt)"
check "compare Chimera row" \
  "Chimera                      not applicable: Chimera needs the micro-batches to be a multiple of the devices; m = 20, p = 8" \
  "$(grep '^Chimera' compare.txt)"

# ---- memory caps: a schedule over the cap is reported, not written (exit 3) ----
"$shardlab" pipeline --stages 4 --microbatches 8 --mem-cap 3 --json > capped.json 2>err.txt
check "over the cap exit" 3 $?
check "over the cap message" "shardlab: pipeline: 1F1B is not a valid schedule: device 0 holds 4 (activations 4 + parameters 0) at time 3, above its cap 3" \
  "$(cat err.txt)"
check "over the cap writes nothing" "" "$(cat capped.json)"
"$shardlab" pipeline --stages 4 --microbatches 8 --mem-cap 3 --schedule list --json > l.json
check "list respects the cap exit" 0 $?
recheck l.json "list under a cap of 3"

# ---- Chrome trace ----
"$shardlab" pipeline "$examples/uniform_4x8.json" --schedule ZB-H1 --trace trace.json > /dev/null
check "trace events" "96 96 4 [0, 1, 2, 3] 1000 ms" "$(python3 -c "
import json; t = json.load(open('trace.json'))
x = [e for e in t['traceEvents'] if e['ph'] == 'X']
m = [e for e in t['traceEvents'] if e['ph'] == 'M' and e['name'] == 'process_name']
print(len(x), sum(1 for e in x if e['dur'] > 0), len(m), sorted({e['pid'] for e in x}), x[0]['dur'], t['displayTimeUnit'])")"

# ---- PyTorch CSV: round trips and errors ----
for schedule in 1F1B ZB-H1 ZB-H2 Interleaved1F1B ZBV DualPipeV; do
  "$shardlab" pipeline --stages 4 --microbatches 8 --schedule "$schedule" --csv s.csv --json > a.json
  "$shardlab" pipeline --stages 4 --microbatches 8 --import-csv s.csv --json > b.json
  check "CSV round trip $schedule" "same" "$(python3 -c "
import json; a = json.load(open('a.json')); b = json.load(open('b.json'))
key = lambda s: sorted((o['device'], o['start'], o['end'], o['kind'], o['microbatch'], o.get('stage')) for o in s['ops'])
print('same' if a['makespan'] == b['makespan'] and key(a) == key(b) and b['name'] == 'imported' and b['valid'] else 'differs')")"
done
check "CSV of DualPipe" \
  "shardlab: pipeline: --csv: the PyTorch schedule CSV cannot hold DualPipe: it runs two parameter copies in opposite directions (micro-batches 0..9 through copy 0, 10..19 through copy 1, so each stage sits on two devices), while PyTorch runs every micro-batch through every stage and each stage on one rank; torch:DualPipeV, DualPipe cut in half onto a V, is the form PyTorch runs" \
  "$("$shardlab" pipeline "$examples/dualpipe_example.json" --schedule DualPipe --csv d.csv 2>&1)"
printf '0F0,0F1,0B0,0B1\n1F0,1B0,1F1,1B1\n' > ok.csv
check "CSV import table" "makespan 9" \
  "$("$shardlab" pipeline --stages 2 --microbatches 2 --import-csv ok.csv | sed -n 2p)"
printf '0F0,0F1,0B0,0B1\n1F0,1X0,1F1,1B1\n' > bad_action.csv
check "CSV bad action" \
  'shardlab: bad_action.csv:2:5 (rank 1, step 1): expected an action such as 2F0, 1I3, 0W3, 1B2 (B: a full backward) or (0F4;3B1)OVERLAP_F_B, found "1X0"' \
  "$("$shardlab" pipeline --stages 2 --microbatches 2 --import-csv bad_action.csv 2>&1)"
printf '0F0,0F1,0B0,0B1\n1F0,1B0,1F2,1B1\n' > bad_mb.csv
check "CSV micro-batch out of range" \
  'shardlab: bad_mb.csv:2:9 (rank 1, step 2): expected micro-batches 0..1 (the problem has 2), found "1F2"' \
  "$("$shardlab" pipeline --stages 2 --microbatches 2 --import-csv bad_mb.csv 2>&1)"
printf '0F0,0F1,0B0,0B1\n1F0,1B0,0F1,1B1\n' > bad_rank.csv
check "CSV stage on two ranks" \
  'shardlab: bad_rank.csv:2:9 (rank 1, step 2): expected stage 0 on rank 0, which runs it in "0F0" at line 1, column 1 (PyTorch puts each stage on one rank), found "0F1" on rank 1' \
  "$("$shardlab" pipeline --stages 2 --microbatches 2 --import-csv bad_rank.csv 2>&1)"
printf '0F0,0F1,0B0,0B1\n1F0,1B0,1F1,1B1,1F1\n' > twice.csv
check "CSV op twice" \
  'shardlab: twice.csv:2:17 (rank 1, step 4): expected each computation once, found "1F1" running the forward (F) of stage 1, micro-batch 1 a second time (first in "1F1" at line 2, column 9)' \
  "$("$shardlab" pipeline --stages 2 --microbatches 2 --import-csv twice.csv 2>&1)"
printf '0F0,0F1,0B0,0B1\n1F0,1B0,1F1\n' > short.csv
check "CSV missing op" \
  "shardlab: short.csv:2:12 (rank 1): expected 1I1 (or 1B1), the input gradient (I) of stage 1, micro-batch 1, on this row, found the end of the row" \
  "$("$shardlab" pipeline --stages 2 --microbatches 2 --import-csv short.csv 2>&1)"
printf '0F0,0B0,0F1,0B1\n1B0,1F0,1F1,1B1\n' > deadlock.csv
check "CSV deadlock" \
  'shardlab: deadlock.csv:1:5 (rank 0, step 1): expected an order that can run, found a deadlock here: "0B0" waits for "1B0" (line 2, column 1, rank 1) and no rank can move on' \
  "$("$shardlab" pipeline --stages 2 --microbatches 2 --import-csv deadlock.csv 2>&1)"
"$shardlab" pipeline --stages 2 --microbatches 2 --import-csv deadlock.csv 2>/dev/null
check "CSV deadlock exit" 2 $?
printf '0F0,0F1,0B0,0B1\n' > rows.csv
check "CSV row count" "shardlab: rows.csv:2:1: expected one row per rank, 2 for the problem's 2 devices, found 1 row (rank 1's row is missing)" \
  "$("$shardlab" pipeline --stages 2 --microbatches 2 --import-csv rows.csv 2>&1)"
printf '0F0,0F1,0B0,0B1\n1F0,1B0,1F1,1B1\n' > capped.csv
"$shardlab" pipeline --stages 2 --microbatches 2 --mem-cap 1 --import-csv capped.csv 2>err.txt
check "CSV over the cap exit" 3 $?
check "CSV over the cap" "shardlab: pipeline: imported is not a valid schedule: device 0 holds 2 (activations 2 + parameters 0) at time 1, above its cap 1" \
  "$(cat err.txt)"

# ---- PyTorch's own orders and its CSV bytes (tests/data/pytorch/README.md) ----
data="$repo/tests/data/pytorch"
csv_case() {  # csv_case LABEL FILE ARGS...: the CSV written equals FILE byte for byte
  local label="$1" file="$2"
  shift 2
  "$shardlab" pipeline "$@" --csv case.csv > /dev/null
  if cmp -s case.csv "$data/$file"; then check "$label" same same; else check "$label" "$(cat "$data/$file")" "$(cat case.csv)"; fi
}
csv_case "torch:DualPipeV = PyTorch's artifact" dualpipev_4rank_10mb.csv \
  --stages 4 --microbatches 10 --schedule torch:DualPipeV
csv_case "torch:Interleaved1F1B, m = 3 on 2 ranks" interleaved1f1b_2rank_3mb_compute.csv \
  --stages 2 --microbatches 3 --schedule torch:Interleaved1F1B
csv_case "torch:Interleaved1F1B lowered" interleaved1f1b_2rank_3mb_comms.csv \
  --stages 2 --microbatches 3 --schedule torch:Interleaved1F1B --csv-format compute_comms
csv_case "torch:InterleavedZeroBubble with bubbles" interleavedzb_2rank_1mb_compute.csv \
  --stages 2 --microbatches 1 --schedule torch:InterleavedZeroBubble
csv_case "torch:ZBVZeroBubble, m < 2p-1" zbv_2rank_2mb_compute.csv \
  --stages 2 --microbatches 2 --schedule torch:ZBVZeroBubble
csv_case "1F1B on the lock-step grid" lockstep_1f1b_2rank_2mb_compute.csv \
  --stages 2 --microbatches 2 --schedule 1F1B
for schedule in torch:Interleaved1F1B torch:InterleavedZeroBubble torch:ZBVZeroBubble torch:DualPipeV; do
  for format in compute_only compute_comms; do
    "$shardlab" pipeline --stages 4 --microbatches 10 --schedule "$schedule" --csv s.csv --csv-format $format --json > a.json
    recheck a.json "$schedule"
    "$shardlab" pipeline --stages 4 --microbatches 10 --import-csv s.csv --json > b.json
    check "CSV round trip $schedule $format" "same" "$(python3 -c "
import json; a = json.load(open('a.json')); b = json.load(open('b.json'))
key = lambda s: sorted((o['device'], o['start'], o['end'], o['kind'], o['microbatch'], o.get('stage')) for o in s['ops'])
print('same' if a['makespan'] == b['makespan'] and key(a) == key(b) and b['valid'] else 'differs')")"
  done
done
check "torch:Interleaved1F1B refuses 9 on 4" \
  "shardlab: pipeline: torch:Interleaved1F1B (PyTorch) needs the micro-batches to be a multiple of its rounds max(1, m div p) = 2; m = 9, p = 4" \
  "$("$shardlab" pipeline --stages 4 --microbatches 9 --schedule torch:Interleaved1F1B 2>&1)"
check "--csv-format value" \
  "shardlab: pipeline: --csv-format takes compute_only or compute_comms, not 'comms'" \
  "$("$shardlab" pipeline --stages 2 --microbatches 2 --csv x.csv --csv-format comms 2>&1 | head -n 1)"
"$shardlab" pipeline --stages 2 --microbatches 3 --import-csv "$data/interleaved1f1b_2rank_3mb_comms.csv" --csv-format compute_only 2>err.txt
check "comms CSV read as compute_only exit" 2 $?
check "comms CSV read as compute_only" \
  "shardlab: $data/interleaved1f1b_2rank_3mb_comms.csv:1:1 (rank 0, step 0): expected a compute_only cell (F, I, W, B or OVERLAP_F_B), found the communication action \"0UNSHARD\" (this is the compute_comms form; PyTorch refuses it as compute_only too)" \
  "$(cat err.txt)"

# ---- the CSV reader on hostile files (issue 25) ----
csv_error() {  # csv_error LABEL EXPECTED FILE: the import's message, exit 2
  "$shardlab" pipeline --stages 2 --microbatches 2 --import-csv "$3" 2>err.txt
  check "$1 exit" 2 $?
  check "$1" "$2" "$(cat err.txt)"
}
printf 'rank 0,rank 1\n0F0,0F1,0B0,0B1\n1F0,1B0,1F1,1B1\n' > header.csv
csv_error "CSV header row" \
  'shardlab: header.csv:1:1 (rank 0, step 0): expected an action such as 2F0, 1I3, 0W3, 1B2 (B: a full backward) or (0F4;3B1)OVERLAP_F_B, found "rank 0" (PyTorch'"'"'s CSV has no header row: one row per rank, one cell per step)' header.csv
printf '0F0,0F1,0B0,0B1\n1F0,1B0,1F1,1B1\n' | iconv -f UTF-8 -t UTF-16 > utf16.csv
csv_error "CSV in UTF-16" \
  "shardlab: utf16.csv:1:1 (byte 0): expected UTF-8 text (PyTorch writes UTF-8; save the file as UTF-8), found a UTF-16 (little-endian) byte-order mark" utf16.csv
printf '0F0,9F1,0B0,0B1\n1F0,1B0,1F1,1B1\n' > stage9.csv
csv_error "CSV naming stage 9" \
  'shardlab: stage9.csv:1:5 (rank 0, step 1): expected a cell running each of stages 0..9 (the highest this CSV names), found "9F1" but no cell running stage 2' stage9.csv
printf '\xef\xbb\xbf0F0,0F1,0B0,0B1\r\n1F0,1B0,1F1,1B1\r\n' > bom.csv
check "CSV with a UTF-8 byte-order mark" "makespan 9" \
  "$("$shardlab" pipeline --stages 2 --microbatches 2 --import-csv bom.csv | sed -n 2p)"
printf ',,,,\n,,,,\n' > empty_cells.csv
csv_error "CSV of empty cells" "shardlab: empty_cells.csv:1:1: expected a computation (an F, I, W, B or OVERLAP_F_B cell), found none" empty_cells.csv
# 24 million empty cells (24 MB) took 2.2 GB before; now the import's peak
# memory, from a python parent, stays below three times the file. Release
# build only: AddressSanitizer's own memory would swamp the figure.
if ! ldd "$shardlab" 2>/dev/null | grep -q libasan; then
  python3 -c "import sys; sys.stdout.write((','*12000000 + '\n') * 2)" > empty_cells.csv
  python3 -c "
import resource, subprocess, sys
r = subprocess.run([sys.argv[1], 'pipeline', '--stages', '2', '--microbatches', '2', '--import-csv', 'empty_cells.csv'], capture_output=True, text=True)
print(r.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)" "$shardlab" > rss.txt
  check "24 million empty cells: exit and peak memory below 3 times the file (the CLI holds the text twice while reading it)" \
    "2 yes" "$(awk '{print $1, ($2 < 3 * 24000) ? "yes" : $2 " KiB"}' rss.txt)"
fi

# ---- --check: a schedule JSON edited by hand ----
"$shardlab" pipeline --stages 2 --microbatches 2 --json > s.json
check "--check of an unedited schedule" "makespan 9" \
  "$("$shardlab" pipeline --stages 2 --microbatches 2 --check s.json | sed -n 2p)"
python3 -c "
import json; s = json.load(open('s.json'))
op = next(o for o in s['ops'] if o['device'] == 1 and o['kind'] == 'F' and o['microbatch'] == 0)
op['start'] -= 0.5; op['end'] -= 0.5
json.dump(s, open('edited.json', 'w'))"
"$shardlab" pipeline --stages 2 --microbatches 2 --check edited.json 2>err.txt
check "--check of an edited schedule exit" 3 $?
check "--check of an edited schedule" "shardlab: pipeline: 1F1B is not a valid schedule: edited.json:1:1750 (byte 1749): at ops[4]: F0 stage 1 starts at 0.5 but its input F0 stage 0 ends at 1" \
  "$(cat err.txt)"

# ---- --normalize round trip ----
"$shardlab" pipeline "$examples/two_towers.json" --normalize > normalized.json
check "normalize round trip" "$("$shardlab" pipeline "$examples/two_towers.json" --json)" \
  "$("$shardlab" pipeline normalized.json --json)"

# ---- memory from a transformer layer (bytes) ----
"$shardlab" pipeline "$examples/transformer_memory.json" --normalize > normalized.json
check "transformer normalize round trip" "$("$shardlab" pipeline "$examples/transformer_memory.json" --compare --json)" \
  "$("$shardlab" pipeline normalized.json --compare --json)"
check "transformer defaults" "3825205248 1073741824 12888309760" "$(python3 -c "
import json; p = json.load(open('normalized.json')); print(p['act'], p['keep'], p['param'])")"
check "transformer flag = file" "$("$shardlab" pipeline "$examples/transformer_memory.json" --compare --json)" \
  "$("$shardlab" pipeline --stages 8 --microbatches 20 --FB 3 --transformer h=4096,s=2048,a=32,layers=4 --mem-cap 64e9 --compare --json)"
check "transformer: memory columns (act x M_B, param x stage copy)" \
  "1F1B 8.0 1.0; ZB-H1 8.0 1.0; ZB-H2 15.0 1.0; DualPipe 9.0 2.0" "$(for s in 1F1B ZB-H1 ZB-H2 DualPipe; do
  "$shardlab" pipeline --stages 8 --microbatches 20 --FB 3 --transformer h=4096,s=2048,a=32,layers=4 --schedule "$s" --json
done | python3 -c "
import json, sys
out = []
for line in sys.stdin:
    s = json.loads(line)
    out.append('%s %.1f %.1f' % (s['name'], max(s['peak_activation']) / s['problem']['act'], max(s['peak_parameter']) / s['problem']['param']))
print('; '.join(out))")"
check "transformer flag error" "shardlab: pipeline: --transformer: unknown key 'heads' (h, s, b, a, t, layers, bytes_per_param)" \
  "$("$shardlab" pipeline --stages 8 --microbatches 20 --transformer h=4096,s=2048,heads=32 2>&1 | head -n 1)"

# ---- --plan (the planner facade) ----
"$shardlab" pipeline --stages 4 --microbatches 4 --placement linear --plan --time-limit 5 --json > planned.json 2>/dev/null
check "plan exit" 0 $?
recheck planned.json "planned, linear"
"$shardlab" pipeline --stages 4 --microbatches 4 --plan --time-limit 5 --json > auto.json 2>/dev/null
check "plan exit, placement chosen by the planner" 0 $?
recheck auto.json "planned, placement chosen by the planner"
check "plan result" "planned 15 15 True linear; auto no worse: True" "$(python3 -c "
import json; s = json.load(open('planned.json')); a = json.load(open('auto.json'))
print(s['name'], s['makespan'], s['lower_bound'], s['optimal'], s['problem']['placement'] + '; auto no worse:', a['makespan'] <= 15)")"
check "emit-lp" "LP written to x.lp: 240 rows, 121 columns (72 binaries), horizon 15" \
  "$("$shardlab" pipeline --stages 4 --microbatches 4 --placement linear --emit-lp x.lp)"
check "emit-lp file" "Minimize" "$(grep -m 1 '^Minimize' x.lp)"

# ---- every schedule written above, re-checked from its JSON ----
rechecked=$(run_rechecks)
check "re-checks" "rechecked $queued schedules, 0 bad" "$(echo "$rechecked" | tail -n 1)"
echo "$rechecked" | grep '^FAIL' || true

finish "pipeline CLI"
