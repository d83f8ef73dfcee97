#!/usr/bin/env python3
# Runs every case of a corpus written by make_corpus.py through the CLI and
# classifies the outcome: crash (signal or sanitizer report), hang (timeout),
# out of memory (bad_alloc, or peak RSS above the limit), wrong acceptance
# (a file that must be refused was read), refusal with a clean one-line
# message (file, line:column, byte, expected, found; or for special files
# the file and the system's reason) or a vague one.
# Usage: run_corpus.py SHARDLAB CORPUS_DIR [--asan] [--out RESULTS.tsv]
#        [--record EXPECTED.tsv | --expected EXPECTED.tsv] [--strict]
# Files are named relative to CORPUS_DIR (the command runs there), so the
# messages are the same wherever the corpus is written. --record writes each
# case's exit code and exact stderr; --expected compares with such a file
# and exits 1 on any difference. --strict exits 1 on any crash, hang, out of
# memory, wrong acceptance or refusal, or vague message (tests/cli/heldout.sh).
import os
import re
import resource
import subprocess
import sys
import tempfile

shardlab = os.path.abspath(sys.argv[1])
corpus = os.path.abspath(sys.argv[2])
record_path = sys.argv[sys.argv.index("--record") + 1] if "--record" in sys.argv else None
expected_path = sys.argv[sys.argv.index("--expected") + 1] if "--expected" in sys.argv else None
asan = "--asan" in sys.argv
strict = "--strict" in sys.argv
results_path = sys.argv[sys.argv.index("--out") + 1] if "--out" in sys.argv else None
# A hang is a run that spends more than CPU_LIMIT_S of processor time
# (RLIMIT_CPU; SIGXCPU ends it), so that a machine shared with other builds
# does not turn a slow run into a "hang"; the wall-clock timeout only
# catches a process that waits forever without computing.
CPU_LIMIT_S = 120 if asan else 60
TIMEOUT_S = 20 * CPU_LIMIT_S
RSS_LIMIT_KB = 3 * 1024 * 1024  # 3 GB counts as out of memory

CLEAN = re.compile(
    r"^shardlab: (?:pipeline: |teach: )?(?P<file>[^\s:]+):(?P<line>\d+):(?P<col>\d+) "
    r"\(byte (?P<byte>\d+)\): (?:at (?P<path>\S+): )?expected .+, found .+$")
# A fault of the whole file (its size): the file, expected and found.
WHOLE_FILE = re.compile(r"^shardlab: (?:pipeline: |teach: )?[^\s:]+: expected .+ of at most \d+ "
                        r"bytes.*, found (?:more than )?\d+ bytes.*$")
# A PyTorch CSV's cell or row: the file, line:column, the rank and step (or
# the byte, for a fault of the bytes), expected and found.
CSV_CLEAN = re.compile(r"^shardlab: (?:pipeline: )?[^\s:]+:\d+:\d+(?: \((?:byte \d+|rank \d+(?:, step \d+)?)\))?: "
                       r"expected .+, found .+$")
# A command-line value: the flag as written, expected and found.
FLAG = re.compile(r"^shardlab: (?:pipeline: |teach: )?--\S+(?: \S+)?: expected .+, found .+$")
SPECIAL = re.compile(r"^shardlab: (?:pipeline: |teach: )?(?P<file>[^\s:]+): .+$")
# A schedule that reads but breaks a rule (exit 3): the checker's finding at
# the entry it is about.
CHECKER = re.compile(r"^shardlab: pipeline: .+ is not a valid schedule: [^\s:]+:\d+:\d+ "
                     r"\(byte \d+\): at \S+: .+$")


def special_path(kind):
    what = kind.split(":", 1)[1]
    base = what.split("-")[0]
    role = what.split("-")[1] if "-" in what else "problem"
    if base == "dir":
        path = "a_directory.json"
        os.makedirs(os.path.join(corpus, path), exist_ok=True)
    elif base == "missing":
        path = "no_such_file.json"
    elif base == "dangling":
        path = "dangling.json"
        if not os.path.islink(os.path.join(corpus, path)):
            os.symlink("nowhere", os.path.join(corpus, path))
    else:
        path = os.path.basename(base) + ".json"
        if not os.path.islink(os.path.join(corpus, path)):
            os.symlink(base, os.path.join(corpus, path))
    return path, role


def command(name, kind, args):
    path = name
    extra = args.split() if args else []
    if kind.startswith("special:"):
        path, role = special_path(kind)
        if role == "model":
            return [shardlab, "teach", path, "--time-limit", "2"]
        if role == "schedule":
            return [shardlab, "pipeline", "base_u22.json", "--check", path]
        return [shardlab, "pipeline", path]
    if kind == "problem":
        return [shardlab, "pipeline", path] + extra
    if kind == "model":
        return [shardlab, "teach", path] + extra
    if kind == "cluster":
        return [shardlab, "plan", "llama3-8b", "--cluster", path, "--gpus", "8", "--global-batch",
                "16", "--time-limit", "2", "--no-alternatives", "--no-sizing"] + extra
    if kind == "hfconfig":
        return [shardlab, "plan", path, "--gpus", "8", "--global-batch", "16", "--time-limit",
                "2", "--no-alternatives", "--no-sizing"] + extra
    if kind.startswith("csv:"):
        return [shardlab, "pipeline", kind.split(":", 1)[1], "--import-csv", path] + extra
    base = kind.split(":", 1)[1]
    return [shardlab, "pipeline", base, "--check", path] + extra


def limit():
    resource.setrlimit(resource.RLIMIT_CPU, (CPU_LIMIT_S, CPU_LIMIT_S + 5))
    if not asan:
        resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))


def run(argv):
    with tempfile.NamedTemporaryFile() as t:
        try:
            p = subprocess.run(["/usr/bin/time", "-f", "%M", "-o", t.name] + argv,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=corpus,
                               timeout=TIMEOUT_S, preexec_fn=limit)
        except subprocess.TimeoutExpired:
            return None, b"", b"", 0
        rss = 0
        try:
            text = open(t.name).read().strip().splitlines()
            rss = int(text[-1]) if text else 0
        except (ValueError, OSError):
            pass
        code = p.returncode
        # /usr/bin/time reports a signal as "Command terminated by signal N".
        signal = re.search(rb"terminated by signal (\d+)", open(t.name, "rb").read())
        if signal:
            code = -int(signal.group(1))
        if code == -24:  # SIGXCPU: the processor-time limit
            return None, p.stdout, p.stderr, rss
        return code, p.stdout, p.stderr, rss


def classify(kind, expect, code, out, err, rss, size):
    text = err.decode("utf-8", errors="replace")
    if code is None:
        return "hang", ""
    if code < 0 or code >= 128 or b"AddressSanitizer" in err or b"runtime error" in err or \
            b"terminate called" in err:
        if b"bad_alloc" in err or b"out of memory" in err or b"allocation-size-too-big" in err:
            return "oom", text
        return "crash", text
    if rss > RSS_LIMIT_KB:
        return "oom", text
    schedule = kind.startswith("schedule")
    accepted = code == 0 or (code == 3 and not schedule)
    if accepted:
        return ("wrong-accept" if expect == "refuse" else "accepted"), ""
    if expect == "accept":
        return "wrong-refuse", text
    lines = text.rstrip("\n").split("\n")
    one = len(lines) == 1 and all(32 <= ord(c) < 127 or ord(c) >= 160 for c in lines[0]) \
        and "\ufffd" not in lines[0]
    if schedule and code == 3:
        return ("checker-clean" if one and CHECKER.match(lines[0]) else "checker-vague"), text
    if one and kind.startswith("csv:") and CSV_CLEAN.match(lines[0]):
        return "clean", text
    if one and (CLEAN.match(lines[0]) or WHOLE_FILE.match(lines[0]) or FLAG.match(lines[0])):
        return "clean", text
    if one and kind.startswith("special") and SPECIAL.match(lines[0]):
        return "clean", text
    return "vague", text


def main():
    rows = [line.rstrip("\n").split("\t") for line in open(os.path.join(corpus, "manifest.tsv"))]
    counts = {}
    out_rows = []
    recorded = []
    for row in rows:
        name, kind, expect = row[0], row[1], row[2]
        args = row[3] if len(row) > 3 else ""
        argv = command(name, kind, args)
        code, out, err, rss = run(argv)
        path = os.path.join(corpus, name)
        size = os.path.getsize(path) if os.path.isfile(path) else 0
        verdict, message = classify(kind, expect, code, out, err, rss, size)
        counts[verdict] = counts.get(verdict, 0) + 1
        first = message.strip().split("\n")[0][:300] if message else ""
        out_rows.append((name, verdict, str(code), str(rss), str(size), first))
        stderr = err.decode("utf-8", errors="backslashreplace").rstrip("\n")
        recorded.append((name, str(code), stderr.replace("\\", "\\\\").replace("\n", "\\n")))
        print(f"{verdict:13s} {name:40s} exit {code} rss {rss // 1024} MB  {first[:160]}",
              flush=True)
    refusals = counts.get("clean", 0) + counts.get("vague", 0)
    checked = counts.get("checker-clean", 0) + counts.get("checker-vague", 0)
    print()
    print(f"cases {len(rows)}: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
    if refusals:
        print(f"clean share of input refusals (exit 1, 2, 4): {counts.get('clean', 0)}/{refusals} = "
              f"{100.0 * counts.get('clean', 0) / refusals:.1f}%")
    if refusals + checked:
        good = counts.get("clean", 0) + counts.get("checker-clean", 0)
        print(f"with the checker's refusals of schedules (exit 3): {good}/{refusals + checked} = "
              f"{100.0 * good / (refusals + checked):.1f}% positioned on one line")
    if strict:
        bad = ("crash", "hang", "oom", "wrong-accept", "wrong-refuse", "vague", "checker-vague")
        failed = [r for r in out_rows if r[1] in bad]
        for r in failed:
            print(f"FAIL {r[0]}: {r[1]} (exit {r[2]}) {r[5]}")
        print(f"held-out corpus: {len(rows)} cases, {len(failed)} crashes, hangs, out-of-memory, "
              f"wrong acceptances or refusals, or vague messages")
        if failed:
            sys.exit(1)
    if results_path:
        with open(results_path, "w") as f:
            for r in out_rows:
                f.write("\t".join(r) + "\n")
    if record_path:
        with open(record_path, "w") as f:
            for r in recorded:
                f.write("\t".join(r) + "\n")
    if expected_path:
        want = {}
        for line in open(expected_path, encoding="utf-8"):
            parts = line.rstrip("\n").split("\t")
            want[parts[0]] = (parts[1], parts[2] if len(parts) > 2 else "")
        failures = 0
        for name, code, message in recorded:
            if want.get(name) != (code, message):
                failures += 1
                print(f"FAIL {name}\n  expected: {want.get(name)}\n  actual:   {(code, message)}")
        missing = set(want) - {r[0] for r in recorded}
        for name in sorted(missing):
            failures += 1
            print(f"FAIL {name}: expected but not in the corpus")
        bad = sum(counts.get(k, 0) for k in ("crash", "hang", "oom", "wrong-accept"))
        print(f"held-out corpus: {len(recorded)} cases, {failures} differ from {expected_path}; "
              f"{bad} crashes, hangs, out-of-memory or wrong acceptances")
        sys.exit(1 if failures or bad else 0)


main()
