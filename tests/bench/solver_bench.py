#!/usr/bin/env python3
"""Solver benchmark: `shardlab solve` on the six contest instances in
../shared/benchmarks at the contest timeouts (times --scale), with
--workers 2, and a table of cost, points (best known / ours), bound, gaps,
time to the first feasible plan and to 0.99 points, and peak RSS.

Reads ../shared/reference/contest_scores.csv for the best known costs, the
published lower bounds and the timeouts. Prints a table; never passes or
fails on time (the exit code is 0 unless the script itself cannot run).

usage: tests/bench/solver_bench.py [--scale 0.1] [--instances A,B,...]
                                   [--workers 2] [--seed 1] [--shardlab PATH]
                                   [--shared DIR] [--out-dir DIR]
"""
import argparse
import csv
import json
import os
import re
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
PROGRESS = re.compile(r"^#\s+([\d.]+)s\s+cost (\d+)\s+bound (-?\d+)")


def find_shardlab(explicit):
    if explicit:
        return explicit
    for build in ("native", "solver", "release", "."):
        path = os.path.join(REPO, "build", build, "shardlab")
        if os.path.isfile(path) and os.access(path, os.X_OK):
            return path
    return None


def read_reference(shared):
    path = os.path.join(shared, "reference", "contest_scores.csv")
    rows = {}
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            letter = row["instance"].rsplit("-", 1)[-1]
            rows[letter] = row
    return rows


def run_one(shardlab, instance, limit, workers, seed, out_json):
    """Runs one solve; returns (stdout lines, peak RSS in MB, wall seconds)."""
    with tempfile.TemporaryFile(mode="w+") as out:
        start = time.monotonic()
        proc = subprocess.Popen(
            [shardlab, "solve", instance, "--time-limit", f"{limit:g}",
             "--workers", str(workers), "--seed", str(seed), "--out", out_json],
            stdout=out, stderr=subprocess.STDOUT)
        # wait4 gives this child's own resource usage (ru_maxrss in KiB).
        _, _, usage = os.wait4(proc.pid, 0)
        proc.returncode = 0
        wall = time.monotonic() - start
        out.seek(0)
        return out.read().splitlines(), usage.ru_maxrss / 1024.0, wall


def fmt_int(value):
    return f"{value:,}" if value is not None else "-"


def fmt_time(value):
    return f"{value:.1f}s" if value is not None else "-"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scale", type=float, default=1.0,
                        help="multiply every contest timeout by this (e.g. 0.1)")
    parser.add_argument("--instances", default="A,B,G,M,S,V")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--shardlab", default=None, help="path of the shardlab binary")
    parser.add_argument("--shared", default=os.path.join(os.path.dirname(REPO), "shared"))
    parser.add_argument("--out-dir", default=None, help="keep the result JSONs here")
    args = parser.parse_args()

    bench_dir = os.path.join(args.shared, "benchmarks")
    if not os.path.isdir(bench_dir):
        print(f"solver_bench: {args.shared} is absent (no benchmarks/ there): nothing to run.")
        print("The contest instances live in ../shared beside the checkout; pass --shared DIR.")
        return 0
    shardlab = find_shardlab(args.shardlab)
    if shardlab is None:
        print("solver_bench: no shardlab binary under build/; build it or pass --shardlab PATH",
              file=sys.stderr)
        return 2
    reference = read_reference(args.shared)
    out_dir = args.out_dir or tempfile.mkdtemp(prefix="solver_bench_")
    os.makedirs(out_dir, exist_ok=True)

    print(f"# shardlab: {shardlab}")
    print(f"# {args.workers} worker(s), seed {args.seed}, timeouts x {args.scale:g}; "
          f"results in {out_dir}")
    header = ("instance", "timeout", "cost", "points", "bound", "gap(bound)", "gap(pub.LB)",
              "first", "to 0.99", "peak RSS", "proven")
    rows = []
    total_points = 0.0
    for letter in [x.strip() for x in args.instances.split(",") if x.strip()]:
        ref = reference.get(letter)
        instance = os.path.join(bench_dir, f"asplos-2025-iopddl-{letter}.json.gz")
        if ref is None or not os.path.isfile(instance):
            rows.append((letter, "-", "missing", "0", "-", "-", "-", "-", "-", "-", "-"))
            continue
        best_known = int(ref["best_known_cost"])
        published_lb = int(float(ref["best_lower_bound"])) if ref["best_lower_bound"] else None
        limit = float(ref["contest_timeout_s"]) * args.scale
        out_json = os.path.join(out_dir, f"{letter}.json")
        lines, rss_mb, wall = run_one(shardlab, instance, limit, args.workers, args.seed, out_json)
        first = None
        to_99 = None
        for line in lines:
            m = PROGRESS.match(line)
            if not m:
                continue
            t, cost = float(m.group(1)), int(m.group(2))
            if first is None:
                first = t
            if to_99 is None and best_known / cost >= 0.99:
                to_99 = t
        cost = bound = None
        proven = False
        try:
            with open(out_json) as f:
                result = json.load(f)
            cost = int(result["cost"]) if result.get("cost") is not None else None
            bound = int(result["lower_bound"])
            proven = bool(result.get("proven_optimal"))
        except (OSError, ValueError, KeyError):
            pass
        points = best_known / cost if cost else 0.0
        total_points += points
        gap_ours = f"{100.0 * (cost - bound) / cost:.4f}%" if cost and bound is not None else "-"
        gap_pub = (f"{100.0 * (cost - published_lb) / cost:.4f}%"
                   if cost and published_lb is not None else "-")
        valid = "" if bound is None or bound <= best_known else " (ABOVE BEST KNOWN!)"
        rows.append((letter, f"{limit:g}s", fmt_int(cost), f"{points:.5f}",
                     fmt_int(bound) + valid, gap_ours, gap_pub, fmt_time(first), fmt_time(to_99),
                     f"{rss_mb:.0f} MB", "yes" if proven else "no"))
        print(f"# {letter}: done in {wall:.1f}s", flush=True)

    widths = [max(len(str(r[i])) for r in rows + [header]) for i in range(len(header))]
    print("  ".join(h.ljust(w) for h, w in zip(header, widths)))
    for r in rows:
        print("  ".join(str(c).ljust(w) for c, w in zip(r, widths)))
    print(f"total points: {total_points:.5f} of {len(rows)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
