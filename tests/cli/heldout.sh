#!/usr/bin/env bash
# The held-out corpus of hostile lab inputs (tests/heldout/make_corpus.py:
# pipeline problems, PyTorch CSVs, teaching models, schedule JSONs, cluster
# files, config.json files, special files) through the real CLI: no crash,
# hang, out-of-memory, wrong acceptance or refusal, and every refusal one
# clean line (file, line:column, byte or rank, path or cell, expected, found).
# Usage: heldout.sh SHARDLAB REPO
source "$(dirname "$0")/lib.bash" "$@"
python3 "$repo/tests/heldout/make_corpus.py" corpus > /dev/null
python3 "$repo/tests/heldout/run_corpus.py" "$shardlab" corpus --strict > run.log
status=$?
grep -E "^(FAIL|held-out corpus|clean share)" run.log
exit $status
