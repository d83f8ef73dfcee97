# What every tests/cli/*.sh starts with (sourced, not a test itself): the
# CLI and the source folder from the arguments, a scratch folder removed on
# exit as the working directory, require(), check(), json_field(),
# verdict(), plan_proven() and finish().
# Usage, at the top of a test: source "$(dirname "$0")/lib.bash" "$@"
set -u
shardlab="$1"
repo="$2"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
failures=0

require() {  # require TEST TOOL PACKAGE: stop TEST with one line unless TOOL is on the PATH
  if ! command -v "$2" > /dev/null; then
    echo "$1: $2 (Debian $3) is missing"
    exit 1
  fi
}

check() {  # check NAME EXPECTED ACTUAL
  if [ "$2" != "$3" ]; then
    echo "FAIL $1"
    echo "  expected: $2"
    echo "  actual:   $3"
    failures=$((failures + 1))
  fi
}

json_field() {  # json_field FILE KEY: a top-level value of a JSON file, as Python prints it
  python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$1" "$2"
}

verdict() {  # verdict SCRIPT ARGS...: the "status" of the one JSON line a bench script prints
  python3 "$@" | python3 -c 'import json, sys; print(json.load(sys.stdin)["status"])'
}

plan_proven() {  # plan_proven NAME ARGS...: the planner on a small bidirectional problem
  # (F = B = W = 1) into NAME.json, and a check that it proves its schedule optimal
  local name="$1"
  shift
  "$shardlab" pipeline "$@" --F 1 --B 1 --W 1 --placement bidirectional --plan --work 200000 \
    --json > "$name.json" 2> /dev/null
  check "$name: the planner proves its schedule optimal" "True" "$(json_field "$name.json" optimal)"
}

finish() {  # finish WHAT: the summary line; the exit status says whether all passed
  if [ "$failures" -ne 0 ]; then
    echo "$1: $failures check(s) failed"
    exit 1
  fi
  echo "$1: all checks passed"
}
