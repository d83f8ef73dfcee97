#!/usr/bin/env python3
"""A bound from the work any schedule can finish by a time t (operator graphs).

For a makespan M and any time t, the work left after t runs on the devices in
[t, M], so M >= t + (total work - W(t)) / devices, where W(t) is the most
work any schedule finishes by t. This script bounds W(t) from above by a
relaxation and searches every placement of the operators that can start
before t exactly (depth-first, pruned by the relaxation of a partial
placement), so the bound holds for every placement:

- Heads: an operator's micro-batches of one kind (its F, B or W) run one
  after another on its device, so the k-th of them to start starts no
  earlier than the (k-1)-th plus its time, and no earlier than the k-th of
  each predecessor's plus that one's time plus the edge's delay when the
  two operators sit on different devices (the k-th to start of this kind
  needs k distinct micro-batches of the predecessor). An edge with a device
  not yet chosen pays no delay.
- Ancestors sharing a device: the k-th of a block's micro-batches to start
  needs k+1 micro-batches of each of its ancestors done, and those of the
  ancestors placed on one device run there one after another, each from
  its own head; so it starts no earlier than that device can finish them
  (with the block's own k earlier ones when it sits there too). This is
  the contention on a device that holds back another device's work.
- Each device then runs its placed work preemptively from those heads (the
  most it can finish by t); work not yet placed counts in full, capped by
  what any one device could add.

A makespan of an optimal schedule lies on the time grid (the gcd of the
times and delays), so the bound rounds up to it. Memory caps and serial
links only remove schedules, so the bound holds with them too; operator
graphs have no overlapped F&B pairs. README.md ("Where the 282-op DAG's gap
lies") gives the figures on the benchmark's DAGs.

Usage: tests/bench/pipeline_prefix_bound.py PROBLEM.json --at 8,12,33
       [--schedule SCHEDULE.json] [--nodes N] [--cli PATH]
       tests/bench/pipeline_prefix_bound.py --random-dag SEED,OPS,DEVICES --at ...
--random-dag builds pipeline_bench.py's random DAG (the DAG section's
282-op one is 1010,277,4). Prints a Markdown table, one row per t, then the
best bound. --schedule adds that schedule's work by each t, which the
relaxation must not fall below (exit 5 if it does: a bug). Exit 1 on a bad
command line, 2 on a problem the CLI refuses (its message), 3 when the
search stops at --nodes before finishing (that row has no bound).
"""

import argparse
import bisect
import json
import os
import subprocess
import sys
import tempfile
from fractions import Fraction

sys.dont_write_bytecode = True  # it imports its neighbours; no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pipeline_bench import random_dag
from pipeline_flow_bound import grid_of

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
NAME = 'pipeline_prefix_bound'


def fail(code, message):
    print(f'{NAME}: {message}', file=sys.stderr)
    sys.exit(code)


def normalized(cli, path):
    """The problem with every default filled in, as the CLI reads it."""
    try:
        proc = subprocess.run([cli, 'pipeline', path, '--normalize'], capture_output=True,
                              text=True)
    except OSError as e:
        fail(1, f'{cli}: {e.strerror} (build the CLI, or give --cli)')
    if proc.returncode != 0:
        lines = proc.stderr.strip().splitlines() or [f'exit {proc.returncode}']
        fail(2, lines[0])
    problem = json.loads(proc.stdout)
    if 'operators' not in problem:
        fail(2, f'{path}: an operator graph ("operators" and "edges") was expected; '
                'this problem has stages')
    return problem


class Graph:
    """Blocks (operator, kind) with their times in grid units and the arcs."""

    def __init__(self, problem):
        ops = problem['operators']
        self.devices = problem['devices']
        self.m = problem['microbatches']
        index = {o['name']: i for i, o in enumerate(ops)}
        default = Fraction(str(problem.get('comm') or 0))
        edges = []
        for e in problem.get('edges', []):
            comm = e.get('comm')
            edges.append((index[e['from']], index[e['to']],
                          default if comm is None or comm < 0 else Fraction(str(comm))))
        times = {}
        for i, o in enumerate(ops):
            for kind in 'FBW':
                times[(i, kind)] = Fraction(str(o[kind]))
        self.grid = grid_of(list(times.values()) + [c for _, _, c in edges])
        self.p = {v: int(t / self.grid) for v, t in times.items() if t > 0}
        self.allowed = [o.get('devices') or list(range(self.devices)) for o in ops]
        self.names = [o['name'] for o in ops]
        arcs = []
        has_succ = set()
        for i, j, c in edges:
            d = int(c / self.grid)
            arcs += [((i, 'F'), (j, 'F'), d), ((j, 'B'), (i, 'B'), d)]
            has_succ.add(i)
        for i in range(len(ops)):
            if i not in has_succ:
                arcs.append(((i, 'F'), (i, 'B'), 0))
            arcs.append(((i, 'B'), (i, 'W'), 0))
        self.into = {v: [] for v in self.p}
        out = {v: [] for v in self.p}
        for u, v, d in arcs:
            if u in self.p and v in self.p:
                self.into[v].append((u, d))
                out[u].append(v)
        # Topological order of the blocks (the CLI refused cycles already).
        indegree = {v: len(self.into[v]) for v in self.p}
        self.topo = [v for v in self.p if indegree[v] == 0]
        for v in self.topo:
            for w in out[v]:
                indegree[w] -= 1
                if indegree[w] == 0:
                    self.topo.append(w)
        self.total = self.m * sum(self.p.values())
        self.ancestors = {}
        for v in self.topo:
            self.ancestors[v] = set().union(*([u] + list(self.ancestors[u])
                                              for u, _ in self.into[v]))

    def heads(self, place, blocks, known=None):
        """Start of the k-th of each block's micro-batches, k = 0..m-1, for
        blocks (in topological order) on top of the known heads of the
        others (a dict, not changed)."""
        r = dict(known or {})
        for v in blocks:
            row = [0] * self.m
            for u, d in self.into[v]:
                delay = d if place[u[0]] is not None and place[v[0]] is not None and \
                    place[u[0]] != place[v[0]] else 0
                ru, pu = r[u], self.p[u]
                for k in range(self.m):
                    row[k] = max(row[k], ru[k] + pu + delay)
            self.in_order(v, row)
            self.after_ancestors(v, place, r, row)
            r[v] = row
        return r

    def in_order(self, v, row):
        for k in range(1, self.m):
            row[k] = max(row[k], row[k - 1] + self.p[v])

    def after_ancestors(self, v, place, r, row):
        """Raises v's heads to when each device can finish the micro-batches
        of v's ancestors on it that v's k-th needs ("Ancestors sharing a
        device" above)."""
        on = {}
        for a in self.ancestors[v]:
            d = place[a[0]]
            if d is not None:
                on.setdefault(d, []).append(a)
        for d, blocks in on.items():
            own = place[v[0]] == d
            # The k-th's pieces are the (k-1)-th's, plus the ancestors' k-th
            # micro-batches and (on v's device) v's own (k-1)-th: kept sorted.
            pieces = []
            for k in range(self.m):
                for a in blocks:
                    bisect.insort(pieces, (r[a][k], self.p[a]))
                if own and k > 0:
                    bisect.insort(pieces, (row[k - 1], self.p[v]))
                end = 0
                for start, q in pieces:
                    end = max(end, start) + q
                row[k] = max(row[k], end)
        self.in_order(v, row)


def preemptive_work(releases, t):
    """The most one device finishes by t from (release, time) pieces."""
    now = done = queue = 0
    for r, q in sorted(releases):
        if r >= t:
            break
        if r > now:
            run = min(queue, r - now)
            done += run
            queue -= run
            now = r
        queue += q
    return done + min(queue, max(0, t - now))


def most_work(g, t, node_limit):
    """max over placements of the relaxation's work by t (grid units), the
    blocks before t, the operators placed, the placements searched, and
    whether the search finished."""
    free = [None] * len(g.names)
    zero = g.heads(free, g.topo)
    live = [v for v in g.topo if zero[v][0] < t]
    order = sorted({v[0] for v in live}, key=lambda i: min(zero[v][0] for v in live
                                                         if v[0] == i))
    # Placing operator i moves the heads of its own blocks and of their
    # descendants only; the search recomputes just those.
    moved = {i: [v for v in live if v[0] == i or any(a[0] == i for a in g.ancestors[v])]
             for i in order}
    place = list(free)
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 2 * len(order) + 100))
    best = [-1]
    nodes = [0]

    def relaxation(r):
        per = [[] for _ in range(g.devices)]
        unplaced = []
        for v in live:
            pieces = [(r[v][k], g.p[v]) for k in range(g.m)]
            (unplaced if place[v[0]] is None else per[place[v[0]]]).extend(pieces)
        extra = sum(min(q, max(0, t - s)) for s, q in unplaced)
        alone = sum(preemptive_work(per[d], t) for d in range(g.devices))
        each = sum(preemptive_work(per[d] + unplaced, t) for d in range(g.devices))
        return min(alone + extra, each)

    def search(k, r):
        if nodes[0] >= node_limit:
            return
        nodes[0] += 1
        value = relaxation(r)
        if value <= best[0]:
            return
        if k == len(order):
            best[0] = value
            return
        i = order[k]
        for d in g.allowed[i]:
            place[i] = d
            search(k + 1, g.heads(place, moved[i], r))
        place[i] = None

    search(0, {v: zero[v] for v in live})
    return best[0], len(live), len(order), nodes[0], nodes[0] < node_limit


def schedule_spans(path):
    """(start, end) of each op of a schedule JSON, read once."""
    try:
        with open(path) as f:
            return [(Fraction(str(o['start'])), Fraction(str(o['end'])))
                    for o in json.load(f)['ops']]
    except (OSError, ValueError, KeyError, TypeError) as e:
        fail(2, f'{path}: a schedule JSON with "ops" was expected ({e})')


def work_by(spans, t):
    return sum(max(Fraction(0), min(end, t) - start) for start, end in spans)


def fmt(x):
    x = Fraction(x)
    return str(x.numerator) if x.denominator == 1 else f'{float(x):g}'


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('problem', nargs='?')
    ap.add_argument('--random-dag', help='SEED,OPS,DEVICES of pipeline_bench.py\'s random DAG')
    ap.add_argument('--at', required=True, help='times t, comma-separated')
    ap.add_argument('--schedule', help='a schedule JSON of the problem (shardlab --plan --json)')
    ap.add_argument('--nodes', type=int, default=20_000_000, help='placements searched per t')
    ap.add_argument('--cli', default=os.path.join(ROOT, 'build/native/shardlab'))
    a = ap.parse_args()
    if (a.problem is None) == (a.random_dag is None):
        ap.error('give either a problem file or --random-dag')
    try:
        times = [Fraction(x) for x in a.at.split(',')]
    except (ValueError, ZeroDivisionError):
        ap.error(f'--at {a.at}: times separated by commas were expected')
    with tempfile.TemporaryDirectory() as tmp:
        path = a.problem
        if a.random_dag:
            try:
                seed, ops, devices = (int(x) for x in a.random_dag.split(','))
            except ValueError:
                ap.error(f'--random-dag {a.random_dag}: SEED,OPS,DEVICES was expected')
            path = os.path.join(tmp, 'dag.json')
            with open(path, 'w') as f:
                json.dump(random_dag(seed, ops, devices), f)
        g = Graph(normalized(a.cli, path))
    for t in times:
        if t <= 0 or t % g.grid:
            ap.error(f'--at {fmt(t)}: a positive multiple of the time grid {fmt(g.grid)} '
                     'was expected')
    print(f'{len(g.names)} operators x {g.m} micro-batches on {g.devices} devices, '
          f'{fmt(g.total * g.grid)} units of work, time grid {fmt(g.grid)}\n')
    head = ['t', 'blocks before t', 'operators placed', 'placements searched',
            'most work by t', 'bound']
    spans = schedule_spans(a.schedule) if a.schedule else None
    if spans is not None:
        head.insert(5, "the schedule's work by t")
    print('| ' + ' | '.join(head) + ' |')
    print('|' + '---|' * len(head))
    best = None
    code = 0
    for t in times:
        tg = int(t / g.grid)
        w, blocks, placed, nodes, done = most_work(g, tg, a.nodes)
        bound = tg + -(-(g.total - w) // g.devices) if done else None
        row = [fmt(t), str(blocks), str(placed), f'{nodes:,}',
               fmt(w * g.grid) if done else 'not finished',
               fmt(bound * g.grid) if done else '-']
        if spans is not None:
            sw = work_by(spans, t)
            row.insert(5, fmt(sw))
            if sw > w * g.grid and done:
                print('| ' + ' | '.join(row) + ' |')
                fail(5, f'the schedule finishes {fmt(sw)} by {fmt(t)}, above the relaxation\'s '
                        f'{fmt(w * g.grid)} (a bug)')
        print('| ' + ' | '.join(row) + ' |', flush=True)
        if not done:
            code = 3
        elif best is None or bound > best[0]:
            best = (bound, t)
    if best:
        print(f'\nbound: {fmt(best[0] * g.grid)} (from t = {fmt(best[1])})')
    return code


if __name__ == '__main__':
    sys.exit(main())
