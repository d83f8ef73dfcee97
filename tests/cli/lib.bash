# What every tests/cli/*.sh starts with (sourced, not a test itself): the
# CLI and the source folder from the arguments, a scratch folder removed on
# exit as the working directory, check(), json_field() and finish().
# Usage, at the top of a test: source "$(dirname "$0")/lib.bash" "$@"
set -u
shardlab="$1"
repo="$2"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
failures=0

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

finish() {  # finish WHAT: the summary line; the exit status says whether all passed
  if [ "$failures" -ne 0 ]; then
    echo "$1: $failures check(s) failed"
    exit 1
  fi
  echo "$1: all checks passed"
}
