#!/usr/bin/env python3
"""The plan lab against published training runs beyond Narayanan et al.'s Table 1.

The A100's efficiency is calibrated once on Table 1 (tests/bench/plan_bench.py
--calibrate); this checks the cost model on runs it was NOT fitted to, each a
row of tests/bench/plan_runs.csv citing its source: Korthikanti et al.
(MLSys'23, Tables 3 and 5), Narayanan et al.'s Table 2 (PTD-P rows), MT-NLG
530B (Smith et al. 2022), BLOOM 176B (BigScience) and Llama 3 405B (Dubey et
al. 2024, Table 4; its context-parallel row is left out: the plan lab has no
context parallelism). Every row runs on its cluster's defaults: nothing is
tuned per row (the H100's efficiency is not calibrated on any measured run).

For every row `shardlab plan` runs
  (a) with --fix to the published configuration (what the source states; the
      rest is optimised) and compares the prediction with the published
      figure in the source's own metric: model FLOPs (Korthikanti's count,
      the plan's mfu x peak) or hardware FLOPs (Narayanan's Eq. 3 with the
      recomputation run, the plan's tflops_per_gpu). Where the source gives
      the iteration time, the error is published time / predicted time - 1
      (the same throughput ratio, free of any FLOP-counting convention);
  (b) free, and reports whether its plan is predicted at least as fast as
      the published one, and its gap to the lower bound.
Prints markdown tables; never passes or fails, on time or on error.

usage: tests/bench/plan_runs_bench.py [--shardlab build/native/shardlab] [--rows 1,2,...]
                                      [--time-limit S | --work N] [--no-free]
"""
import argparse
import csv
import json
import math
import os
import sys

from plan_bench import plan_text, timed_run

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def read_rows():
    with open(os.path.join(HERE, "plan_runs.csv")) as f:
        return list(csv.DictReader(f))


def in_repo(name):
    """Model and cluster files are named from the repository's root."""
    return os.path.join(ROOT, name) if name.endswith(".json") else name


def run_plan(shardlab, row, fix, extra):
    cmd = [shardlab, "plan", in_repo(row["model"]), "--cluster", in_repo(row["cluster"]),
           "--gpus", row["gpus"], "--global-batch", row["global_batch"], "--seq", row["seq"],
           "--json", "--no-alternatives", "--no-sizing", *extra]
    if fix:
        cmd += ["--fix", fix]
    out, seconds, cpu = timed_run(cmd)
    if out.returncode not in (0, 3):
        # A --fix that no plan satisfies (exit 1) is a finding, not a crash.
        return {"found": False, "error": out.stderr.strip()}, (seconds, cpu)
    return json.loads(out.stdout), (seconds, cpu)


def number(text):
    return float(text) if text.strip() else None


def predicted_tflops(row, doc):
    """The plan's throughput in the source's metric."""
    if row["metric"] == "model":
        return doc["mfu"] * doc["cluster"]["peak_tflops"]
    return doc["tflops_per_gpu"]


def why_not(doc):
    if "error" in doc:
        return doc["error"].replace("|", "/")
    if doc.get("needs_bytes"):
        return f"does not fit: needs {doc['needs_bytes'] / 1e9:.1f} GB per GPU"
    return "no plan"


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--shardlab", default=os.path.join(ROOT, "build", "native", "shardlab"))
    ap.add_argument("--rows", default="", help="1-based row numbers of plan_runs.csv, e.g. 1,2,10")
    ap.add_argument("--time-limit", default="10", help="seconds for each free plan")
    ap.add_argument("--work", default="",
                    help="bound each free plan by work units instead of the clock (reproducible)")
    ap.add_argument("--no-free", action="store_true", help="only the published configurations")
    args = ap.parse_args()
    if not os.path.exists(args.shardlab):
        sys.exit(f"plan_runs_bench: {args.shardlab} is absent (build the shardlab target)")
    rows = read_rows()
    if args.rows:
        rows = [rows[int(i) - 1] for i in args.rows.split(",")]
    load = os.getloadavg()
    print(f"load average at start: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} "
          f"on {os.cpu_count()} cores\n")
    print("| run | GPUs | batch x seq | cluster | metric | published TFLOP/s | predicted | error "
          "| published MFU | predicted MFU | published s | predicted s | fixed plan |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    fixed_docs, errors = [], []
    for row in rows:
        doc, _ = run_plan(args.shardlab, row, row["fix"], ())
        fixed_docs.append(doc)
        cluster = os.path.splitext(os.path.basename(row["cluster"]))[0]
        head = (f"| {row['run']} | {row['gpus']} | {row['global_batch']} x {row['seq']} | "
                f"{cluster} | {row['metric']} |")
        pub_mfu = number(row["published_mfu"])
        pub_s = number(row["iteration_s"])
        if not doc["found"]:
            errors.append(None)
            pub = number(row["published_tflops"])
            peak = doc.get("cluster", {}).get("peak_tflops")
            if pub is None and pub_mfu is not None and peak:
                pub = pub_mfu * peak
            print(f"{head} {'' if pub is None else f'{pub:.1f}'} | {why_not(doc)} | | "
                  f"{'' if pub_mfu is None else f'{100 * pub_mfu:.1f}%'} | | "
                  f"{'' if pub_s is None else f'{pub_s:.2f}'} | | {row['fix']} |")
            continue
        pred = predicted_tflops(row, doc)
        pub = number(row["published_tflops"])
        derived = ""
        if pub is None and pub_mfu is not None:
            pub = pub_mfu * doc["cluster"]["peak_tflops"]
        if pub is None:  # only a time: the same metric at the published time
            pub = pred * doc["step_time_s"] / pub_s
            derived = " (from time)"
        err = (pub_s / doc["step_time_s"] - 1) if pub_s is not None else pred / pub - 1
        errors.append(err)
        print(f"{head} {pub:.1f}{derived} | {pred:.1f} | {100 * err:+.1f}% | "
              f"{'' if pub_mfu is None else f'{100 * pub_mfu:.1f}%'} | {100 * doc['mfu']:.1f}% | "
              f"{'' if pub_s is None else f'{pub_s:.2f}'} | {doc['step_time_s']:.2f} | "
              f"{plan_text(doc['plan'])} |")
    measured = [abs(e) for e in errors if e is not None]
    if measured:
        print(f"\nmean |error| {100 * sum(measured) / len(measured):.1f}% over {len(measured)} "
              f"rows; largest {100 * max(measured):.1f}%; "
              f"{sum(1 for e in measured if e <= 0.25)} within 25%; "
              f"{len(errors) - len(measured)} published configurations predicted not to fit")
    if args.no_free:
        return
    print("\n| run | free plan | free TFLOP/s | vs fixed | at least as fast | gap | wall s | CPU s |")
    print("|---|---|---|---|---|---|---|---|")
    for row, fixed in zip(rows, fixed_docs):
        budget = ("--work", args.work) if args.work else ("--time-limit", args.time_limit)
        free, (seconds, cpu) = run_plan(args.shardlab, row, None, budget)
        if not free["found"]:
            print(f"| {row['run']} | {why_not(free)} | | | | | {seconds:.2f} | {cpu:.2f} |")
            continue
        fixed_step = fixed["step_time_s"] if fixed["found"] else math.inf
        faster = free["step_time_s"] <= fixed_step * (1 + 1e-12)
        vs = f"{100 * (free['step_time_s'] / fixed_step - 1):+.1f}%" if fixed["found"] else "-"
        proven = " (proven)" if free["proven"] else ""
        print(f"| {row['run']} | {plan_text(free['plan'])} | {predicted_tflops(row, free):.1f} | "
              f"{vs} | {'yes' if faster else 'no'} | {100 * free['gap']:.2f}%{proven} | "
              f"{seconds:.2f} | {cpu:.2f} |")


if __name__ == "__main__":
    main()
