#!/usr/bin/env python3
"""A bound on every rank at once for bidirectional (DualPipe) pipeline problems.

Writes the time-indexed counting MIP described in README.md ("The flow
bound") for a uniform stages problem on the bidirectional placement, solves
it with Debian's cbc, and prints whether a schedule of makespan at most T
exists. Talks to nothing in the core: the problem is given as flags with the
CLI's meaning (core/pipeline/model.h); tests/cli/pipeline_flow_bound.sh
checks it against the planner's proven optima on small problems.

Usage: tests/bench/pipeline_flow_bound.py --stages 8 --microbatches 20
       --FB 2 --comm 0.25 --mem-cap 9 --makespan 53.75 [--limit 600]
       [--lp FILE] [--keep 0] [--F 1 --B 1 --W 1 --act 1]
       [--relaxation | --barrier] [--symmetric] [--solver highs]
       [--check SCHEDULE.json] [--decode SOLUTION]
Prints one JSON line: {"makespan": T, "status": "feasible" | "infeasible" |
"unknown", "seconds": ..., ...}; "infeasible" proves that no schedule ends
by T, hence a bound of T plus one grid step. --decode turns an integer
point (a solver's solution) into a schedule JSON that `shardlab pipeline
--check` re-checks independently.
"""

import argparse
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from fractions import Fraction

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def grid_of(values):
    """The gcd of positive rationals (the time grid of the problem)."""
    g = Fraction(0)
    for v in values:
        if v == 0:
            continue
        if g == 0:
            g = v
        else:
            num = math.gcd(g.numerator * v.denominator, v.numerator * g.denominator)
            g = Fraction(num, g.denominator * v.denominator)
    return g


class Model:
    """The counting MIP of one problem at one horizon, as CPLEX-LP text.

    Slot types per device d (copy 0 runs stage d there, copy 1 stage p-1-d):
    a single F, B or W of either copy, a full backward BW (B and its W in one
    block) of either copy, and a pair of an F of copy a with a full backward
    of copy b. C_type_d_t counts the slots of that type started at grid
    times <= t (integer, non-decreasing); everything else is a difference of
    these counts.
    """

    def __init__(self, a):
        p, m = a.stages, a.microbatches
        F, B, W = Fraction(a.F), Fraction(a.B), Fraction(a.W)
        FB = Fraction(a.FB) if a.FB is not None else F + B + W
        comm = Fraction(a.comm)
        T = Fraction(a.makespan)
        self.g = grid_of([F, B, W, FB, comm, B + W])
        g = self.g
        if T % g != 0:
            # Some optimal schedule lies on the grid (README), so T rounds down.
            T = (T // g) * g
        self.p, self.T = p, T
        self.n = int(T / g)  # grid steps in the horizon
        self.dur = {'F': int(F / g), 'B': int(B / g), 'W': int(W / g), 'BW': int((B + W) / g),
                    'P': int(FB / g)}
        self.comm = int(comm / g)
        self.act = Fraction(a.act)
        self.keep = Fraction(a.keep)
        self.cap = Fraction(a.mem_cap) if a.mem_cap is not None else None
        first = (m + 1) // 2
        self.count = [first, m - first]  # micro-batches per copy (model.cpp)
        self.rows = []
        self.bounds = {}  # var -> (lo, hi)
        # The LP relaxation only: its feasible set is convex and the mirror
        # image of a point (device d as p-1-d, copies swapped) is a point
        # when both copies carry as many micro-batches, so the average of
        # the two is one: the LP has a point iff it has a symmetric one.
        # Not for the MIP (the average of two integer points is not one).
        # With --symmetric the MIP, too, searches mirror-symmetric points
        # only: a way to find schedules, never a bound.
        self.mirror = (bool(getattr(a, 'relaxation', False)) or bool(getattr(a, 'symmetric', False))
                       ) and self.count[0] == self.count[1]

    def stage(self, copy, d):
        return d if copy == 0 else self.p - 1 - d

    def device(self, copy, s):
        return s if copy == 0 else self.p - 1 - s

    def types(self):
        """Slot types on one device: (name, duration, F copy, backward copy, has W)."""
        out = []
        for c in (0, 1):
            if self.count[c] == 0:
                continue
            out.append(('F%d' % c, self.dur['F'], c, None, False))
            out.append(('B%d' % c, self.dur['B'], None, c, False))
            out.append(('W%d' % c, self.dur['W'], None, None, True))
            out.append(('X%d' % c, self.dur['BW'], None, c, True))
        for a_ in (0, 1):
            for b_ in (0, 1):
                if self.count[a_] and self.count[b_]:
                    out.append(('P%d%d' % (a_, b_), self.dur['P'], a_, b_, True))
        return out

    def windows(self):
        """Earliest and latest start (grid steps) of every slot type on every
        device: heads and tails along the chains at their least lengths (an
        F takes at least min(F, F&B) from start to end, a B min(B, F&B), a
        B to the end of its W min(B + W, F&B)), so that no schedule ending
        by T starts a slot outside its window."""
        d_ = self.dur
        eF = min(d_['F'], d_['P'])
        eB = min(d_['B'], d_['BW'], d_['P'])
        eBW = min(d_['BW'], d_['P'])
        c_, S = self.comm, self.p
        head_f = lambda s: s * (eF + c_)
        head_b = lambda s: head_f(S - 1) + eF + (S - 1 - s) * (eB + c_)
        tail_f = lambda s: eF + (S - 1 - s) * (2 * c_ + eF + eB) + eBW
        tail_b = lambda s: s * (eB + c_) + eBW
        self.window = {}
        for d in range(self.p):
            for name, dur, fc, bc, _ in self.types():
                lo, hi = 0, self.n - dur
                if fc is not None:
                    s = self.stage(fc, d)
                    lo, hi = max(lo, head_f(s)), min(hi, self.n - tail_f(s))
                if bc is not None:
                    s = self.stage(bc, d)
                    lo, hi = max(lo, head_b(s)), min(hi, self.n - tail_b(s))
                if name[0] == 'W':
                    s = self.stage(int(name[1]), d)
                    lo = max(lo, head_b(s) + d_['B'])
                self.window[name, d] = (lo, hi)

    def var(self, name, d, t):
        """The cumulative count of type `name` on device d started by grid
        time t: None (the constant 0) before its window, the count at the
        window's end after it."""
        lo, hi = self.window[name, d]
        if t < lo or hi < lo:
            return None
        if self.mirror and d >= self.p // 2:
            name, d = self.mirrored(name), self.p - 1 - d
        return 'C_%s_%d_%d' % (name, d, min(t, hi))

    @staticmethod
    def mirrored(name):
        """The slot type that device p-1-d runs where device d runs `name`
        in the mirror image of a schedule (directions swapped)."""
        swap = {'0': '1', '1': '0'}
        return name[0] + ''.join(swap[ch] for ch in name[1:])

    def upper(self, terms, rhs):
        """Adds terms <= rhs unless every schedule meets it already (no
        positive coefficient, rhs >= 0: counts are >= 0) or the same row is
        there (times past every window repeat the last row)."""
        terms = {v: c for v, c in terms.items() if c != 0}
        if rhs >= 0 and all(c < 0 for c in terms.values()):
            return
        key = (frozenset(terms.items()), rhs)
        if key in self.seen:
            return
        self.seen.add(key)
        self.rows.append((terms, '<=', rhs))

    def build(self):
        self.seen = set()
        n = self.n
        ty = self.types()
        self.dur_of = {name: dur for name, dur, *_ in ty}
        self.windows()
        # The counts, non-decreasing.
        for d in range(self.p):
            for name, dur, *_ in ty:
                if self.mirror and d >= self.p // 2:
                    continue
                lo, hi = self.window[name, d]
                for t in range(lo, hi + 1):
                    v = 'C_%s_%d_%d' % (name, d, t)
                    self.bounds[v] = (0, n)
                    if t > lo:
                        self.rows.append(({v: 1, 'C_%s_%d_%d' % (name, d, t - 1): -1}, '>=', 0))

        def add(terms, name, d, t, coef):
            v = self.var(name, d, t)
            if v is not None:
                terms[v] = terms.get(v, 0) + coef

        def started(terms, names, d, t, coef=1):
            for name in names:
                add(terms, name, d, t, coef)

        def ended(terms, names, d, t, coef=1):
            for name in names:
                add(terms, name, d, t - self.dur_of[name], coef)

        names = set(self.dur_of)

        def f_slots(c):  # slots holding an F of copy c
            return [x for x in ('F%d' % c, 'P%d0' % c, 'P%d1' % c) if x in names]

        def b_slots(c):  # slots holding a B of copy c
            return [x for x in ('B%d' % c, 'X%d' % c, 'P0%d' % c, 'P1%d' % c) if x in names]

        # One slot at a time on a device: slots running over [t, t+1).
        # Their indices in self.rows are kept in slot_rows, for encoders
        # that write these rows their own way (pipeline_sat_bound.py).
        self.slot_rows = set()
        for d in range(self.p):
            for t in range(n):
                terms = {}
                for name, dur, *_ in ty:
                    add(terms, name, d, t, 1)
                    add(terms, name, d, t - dur, -1)
                if terms:
                    before = len(self.rows)
                    self.upper(terms, 1)
                    if len(self.rows) > before:
                        self.slot_rows.add(before)
        # Every operation once: totals per unit.
        for c in (0, 1):
            if self.count[c] == 0:
                continue
            for s in range(self.p):
                d = self.device(c, s)
                for slots in (f_slots(c), b_slots(c)):
                    terms = {}
                    started(terms, slots, d, n)
                    self.rows.append((terms, '=', self.count[c]))
                # Every single B has its single W (the others run in their block).
                terms = {}
                started(terms, ['W%d' % c], d, n, 1)
                started(terms, ['B%d' % c], d, n, -1)
                self.rows.append((terms, '=', 0))
        # Precedence as counts: the i-th op to start at a unit needs an
        # op of its predecessor unit to have ended, a distinct one each.
        S = self.p
        for c in (0, 1):
            if self.count[c] == 0:
                continue
            for s in range(S):
                d = self.device(c, s)
                for t in range(n + 1):
                    if s > 0:  # F of stage s after F of stage s-1 + comm
                        dp = self.device(c, s - 1)
                        terms = {}
                        started(terms, f_slots(c), d, t)
                        ended(terms, f_slots(c), dp, t - self.comm, -1)
                        self.upper(terms, 0)
                    if s < S - 1:  # B of stage s after B of stage s+1 + comm
                        dn = self.device(c, s + 1)
                        terms = {}
                        started(terms, b_slots(c), d, t)
                        ended(terms, b_slots(c), dn, t - self.comm, -1)
                        self.upper(terms, 0)
                    # B after the F of its micro-batch on the same unit
                    terms = {}
                    started(terms, b_slots(c), d, t)
                    ended(terms, f_slots(c), d, t, -1)
                    self.upper(terms, 0)
                    # a single W after its single B
                    terms = {}
                    started(terms, ['W%d' % c], d, t)
                    ended(terms, ['B%d' % c], d, t, -1)
                    self.upper(terms, 0)
        # Memory at every grid time: F allocates at its start, B releases
        # act - keep at its end, W keep at its end (releases first).
        if self.cap is not None:
            for d in range(self.p):
                for t in range(n + 1):
                    terms = {}
                    for c in (0, 1):
                        if self.count[c] == 0:
                            continue
                        started(terms, f_slots(c), d, t, self.act)
                        ended(terms, b_slots(c), d, t, -(self.act - self.keep))
                        if self.keep:
                            ended(terms, ['W%d' % c, 'X%d' % c, 'P0%d' % c, 'P1%d' % c], d, t,
                                  -self.keep)
                    self.upper(terms, self.cap)

    def lp_text(self, integer=True):
        out = ['\\ pipeline_flow_bound: counting MIP, horizon %s, grid %s' % (self.T, self.g),
               'Minimize', ' obj: 0 C_dummy', 'Subject To']
        k = 0
        written = set()
        for terms, sense, rhs in self.rows:
            terms = {v: c for v, c in terms.items() if c != 0}
            key = (frozenset(terms.items()), sense, rhs)
            if key in written:
                continue
            written.add(key)
            if not terms:
                if (sense == '<=' and 0 > rhs) or (sense == '>=' and 0 < rhs) or (
                        sense == '=' and rhs != 0):
                    out.append(' r%d: C_dummy >= 1' % k)  # an empty row that fails
                    self.bounds['C_dummy'] = (0, 0)
                    k += 1
                continue
            parts = []
            for v, c in sorted(terms.items()):
                c = Fraction(c)
                text = str(float(c)) if c.denominator != 1 else str(c.numerator)
                parts.append(('+ ' if c > 0 else '- ') + text.lstrip('-') + ' ' + v)
            rhs = Fraction(rhs)
            out.append(' r%d: %s %s %s' % (k, ' '.join(parts), sense, float(rhs)))
            k += 1
        out.append('Bounds')
        out.append(' 0 <= C_dummy <= %d' % self.bounds.get('C_dummy', (0, 0))[1])
        for v, (lo, hi) in sorted(self.bounds.items()):
            if v != 'C_dummy':
                out.append(' %d <= %s <= %d' % (lo, v, hi))
        if integer:
            out.append('General')
            out.append(' ' + ' '.join(v for v in sorted(self.bounds) if v != 'C_dummy'))
        out.append('End')
        return '\n'.join(out) + '\n'


def starts_of_schedule(model, schedule):
    """Every block's start in a schedule (the CLI's schedule JSON), floored
    to the grid (which keeps a valid schedule valid, README), in grid steps
    by slot type and device: {(type, device): [step, ...]}."""
    starts = {}
    for op in schedule['ops']:
        kind, c = op['kind'], op['direction']
        name = {'F': 'F%d', 'B': 'B%d', 'W': 'W%d', 'BW': 'X%d'}.get(kind)
        name = name % c if name else 'P%d%d' % (c, op['backward']['direction'])
        t = int(Fraction(op['start']).limit_denominator(10**6) / model.g)
        starts.setdefault((name, op['device']), []).append(t)
    return starts


def counts_of_schedule(model, schedule):
    """The model's variables at a schedule (the CLI's schedule JSON): the
    starts of starts_of_schedule counted by slot type, device and time."""
    starts = starts_of_schedule(model, schedule)
    values = {}
    for (name, d), ts in starts.items():
        lo, hi = model.window[name, d]
        for t in range(lo, hi + 1):
            values['C_%s_%d_%d' % (name, d, t)] = sum(1 for x in ts if x <= t)
        outside = [x for x in ts if x < lo or x > hi]
        if outside:
            return None, '%s on device %d starts at step %d, outside its window [%d, %d]' % (
                name, d, outside[0], lo, hi)
    return values, None


def schedule_of_counts(model, value):
    """The schedule JSON (ops with times, as the CLI's --check reads it) of an
    integer point: value(name) gives a column's value. Each unit's ops run in
    first-in first-out order (the i-th F and the i-th B of every stage are
    micro-batch i of their copy), which the precedence rows make valid."""
    g, m0 = model.g, model.count[0]
    blocks = []  # (device, start step, type name)
    for d in range(model.p):
        for name in model.dur_of:
            before = 0
            for t in range(model.n + 1):
                v = model.var(name, d, t)
                now = int(round(value(v))) if v is not None else 0
                blocks.extend([(d, t, name)] * (now - before))
                before = now
    blocks.sort()
    nxt = {}  # (kind, copy, stage) -> next micro-batch index

    def take(kind, c, s):
        i = nxt.get((kind, c, s), 0)
        nxt[kind, c, s] = i + 1
        return i + (m0 if c == 1 else 0)

    single_b = {}  # (copy, stage) -> micro-batches of single Bs, in order
    ops = []
    for d, t, name in blocks:
        kind, start, end = name[0], t * g, (t + model.dur_of[name]) * g
        op = {'id': len(ops), 'device': d, 'chunk': 0, 'start': float(start), 'end': float(end)}
        if kind == 'P':
            a_, b_ = int(name[1]), int(name[2])
            s_f, s_b = model.stage(a_, d), model.stage(b_, d)
            op.update(kind='FB', stage=s_f, direction=a_, microbatch=take('F', a_, s_f),
                      backward={'stage': s_b, 'chunk': 0, 'direction': b_,
                                'microbatch': take('B', b_, s_b)})
        else:
            c = int(name[1])
            s_ = model.stage(c, d)
            if kind == 'F':
                mb = take('F', c, s_)
            elif kind in 'BX':
                mb = take('B', c, s_)
                if kind == 'B':
                    single_b.setdefault((c, s_), []).append(mb)
            else:
                mb = single_b[c, s_][take('W', c, s_) - (m0 if c == 1 else 0)]
            op.update(kind={'X': 'BW'}.get(kind, kind), stage=s_, direction=c, microbatch=mb)
        ops.append(op)
    return {'makespan': float(max(o['end'] for o in ops)), 'ops': ops}


def violated_rows(model, values):
    """The rows a point breaks (an empty list: the point is in the model)."""
    bad = []
    for k, (terms, sense, rhs) in enumerate(model.rows):
        lhs = sum(Fraction(c) * values.get(v, 0) for v, c in terms.items())
        ok = lhs <= rhs if sense == '<=' else lhs >= rhs if sense == '>=' else lhs == rhs
        if not ok:
            bad.append((k, terms, sense, rhs, lhs))
    return bad


def solve_highs(lp_path, limit, node):
    """HiGHS (npm highs under node): a second, independent solver."""
    highs = os.path.join(ROOT, 'node_modules/highs/build/highs.mjs')
    script = ('const h = await (await import(process.argv[1])).default();'
              'const fs = await import("node:fs");'
              'const r = h.solve(fs.readFileSync(process.argv[2], "utf8"),'
              ' {time_limit: Number(process.argv[3])});'
              'console.log(JSON.stringify({status: r.Status}));')
    started = time.monotonic()
    proc = subprocess.run([node, '--input-type=module', '-e', script, highs, lp_path, str(limit)],
                          capture_output=True, text=True)
    wall = time.monotonic() - started
    if proc.returncode != 0:
        return 'unknown', wall, proc.stderr
    status = json.loads(proc.stdout.strip().splitlines()[-1])['status']
    return {'Infeasible': 'infeasible', 'Optimal': 'feasible'}.get(status, 'unknown'), wall, status


def solve_barrier(lp_path, limit, cbc):
    """The LP relaxation by cbc's barrier (with crossover to a vertex):
    where the LP has a point, tens of times faster than the dual simplex
    here (3.6 s against 179 s on DualPipe's example, F&B 2.5, comm 0.5 at
    63.5); where it has none the barrier may stall, so a time limit ends it
    as unknown."""
    started = time.monotonic()
    try:
        proc = subprocess.run([cbc, lp_path, 'sec', str(limit), 'barrier'], capture_output=True,
                              text=True, timeout=limit + 30)
    except subprocess.TimeoutExpired:
        return 'unknown', time.monotonic() - started, ''
    wall = time.monotonic() - started
    text = proc.stdout
    if re.search(r'Optimal objective', text) and re.search(r'primal 0 \(0\)', text):
        return 'feasible (LP)', wall, text
    if re.search(r'Primal infeasible|Problem is infeasible', text):
        return 'infeasible', wall, text
    return 'unknown', wall, text


def solve(lp_path, limit, cbc, relaxation=False):
    """cbc on the model: branch and cut, or with relaxation only its LP
    (integrality dropped: infeasible there is infeasible everywhere)."""
    started = time.monotonic()
    args = [cbc, lp_path, 'sec', str(limit), 'initialSolve' if relaxation else 'solve']
    proc = subprocess.run(args, capture_output=True, text=True)
    wall = time.monotonic() - started
    text = proc.stdout
    if relaxation:
        if re.search(r'Primal infeasible|Problem is infeasible|infeasible', text, re.I):
            return 'infeasible', wall, text
        if re.search(r'Optimal objective', text):
            return 'feasible (LP)', wall, text
        return 'unknown', wall, text
    if re.search(r'Problem is infeasible|infeasible - objective|Result - Problem proven infeasible',
                 text):
        status = 'infeasible'
    elif re.search(r'Result - Optimal solution found|Optimal - objective value', text):
        status = 'feasible'
    elif re.search(r'Result - Stopped on time limit', text) and 'No feasible solution' not in text:
        status = 'feasible' if re.search(r'Objective value:\s+0', text) else 'unknown'
    else:
        status = 'unknown'
    return status, wall, text


def seconds(text):
    """A time limit's flag value: a positive, finite number of seconds
    (cadical reads -t 0 as no limit at all; cbc stops at its first check)."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (0 < value < math.inf):
        raise argparse.ArgumentTypeError('%s: a positive number of seconds was expected' % text)
    return value


def problem_arguments(ap):
    """The problem's flags, with the CLI's meaning (also for
    pipeline_sat_bound.py, which encodes the same model)."""
    ap.add_argument('--stages', type=int, required=True)
    ap.add_argument('--microbatches', type=int, required=True)
    ap.add_argument('--F', default='1')
    ap.add_argument('--B', default='1')
    ap.add_argument('--W', default='1')
    ap.add_argument('--FB', default=None)
    ap.add_argument('--comm', default='0')
    ap.add_argument('--act', default='1')
    ap.add_argument('--keep', default='0')
    ap.add_argument('--mem-cap', default=None)
    ap.add_argument('--makespan', default=None)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    problem_arguments(ap)
    ap.add_argument('--check', default=None,
                    help="a schedule JSON (the CLI's --json): is it a point of the model at its makespan?")
    ap.add_argument('--decode', default=None,
                    help='a solution (cbc solu file, JSON {"cols": {...}} or a schedule JSON, whose '
                    'counts are taken): print its schedule JSON, for --check by the CLI')
    ap.add_argument('--limit', type=seconds, default=600)
    ap.add_argument('--lp', default=None, help='keep the model here')
    ap.add_argument('--cbc', default=shutil.which('cbc'))
    ap.add_argument('--solver', choices=['cbc', 'highs'], default='cbc')
    ap.add_argument('--relaxation', action='store_true', help='solve the LP relaxation only')
    ap.add_argument('--barrier', action='store_true',
                    help="the LP relaxation by cbc's barrier (fast where it has a point)")
    ap.add_argument('--symmetric', action='store_true',
                    help='mirror-symmetric points only, also in the MIP (finds schedules; no bound)')
    ap.add_argument('--log', action='store_true', help="print cbc's log on stderr")
    a = ap.parse_args()
    if a.stages % 2 or a.stages < 2:
        sys.exit('the bidirectional placement needs an even number of devices')
    schedule = None
    if a.check:
        with open(a.check) as f:
            schedule = json.load(f)
        a.makespan = str(schedule['makespan'])
    if a.makespan is None:
        sys.exit('--makespan or --check is needed')
    if a.barrier:
        a.relaxation = True
    model = Model(a)
    model.build()
    if a.decode:
        with open(a.decode) as f:
            text = f.read()
        doc = json.loads(text) if text.lstrip().startswith('{') else None
        if doc is not None and 'ops' in doc:  # a schedule: its own counts (a test)
            cols, why = counts_of_schedule(model, doc)
            if cols is None:
                sys.exit(why)
        elif doc is not None:
            cols = doc['cols']
        else:  # cbc: "index name value reduced-cost" after a status line
            cols = {}
            for line in text.splitlines()[1:]:
                parts = line.replace('**', ' ').split()
                if len(parts) >= 3:
                    cols[parts[1]] = float(parts[2])
        print(json.dumps(schedule_of_counts(model, lambda v: cols.get(v, 0))))
        return
    if schedule is not None:
        values, why = counts_of_schedule(model, schedule)
        bad = violated_rows(model, values) if values is not None else []
        print(json.dumps({'makespan': float(model.T), 'in_model': values is not None and not bad,
                          'why': why or ('row %d: %s' % (bad[0][0], bad[0][1:]) if bad else '')}))
        sys.exit(0 if values is not None and not bad else 1)
    tmp = None
    path = a.lp
    if path is None:
        tmp = tempfile.mkdtemp(prefix='flow_bound_')
        path = os.path.join(tmp, 'model.lp')
    with open(path, 'w') as f:
        f.write(model.lp_text(integer=not a.relaxation))
    if a.solver == 'highs':
        status, wall, log = solve_highs(path, a.limit, shutil.which('node'))
        if a.relaxation and status == 'feasible':
            status = 'feasible (LP)'
    else:
        if not a.cbc:
            sys.exit('cbc not found (Debian coinor-cbc)')
        if a.barrier:
            status, wall, log = solve_barrier(path, a.limit, a.cbc)
        else:
            status, wall, log = solve(path, a.limit, a.cbc, a.relaxation)
    if a.log:
        sys.stderr.write(log)
    out = {'makespan': float(model.T), 'grid': float(model.g), 'status': status,
           'seconds': round(wall, 2), 'rows': len(model.rows), 'columns': len(model.bounds)}
    print(json.dumps(out))
    if tmp:
        shutil.rmtree(tmp)


if __name__ == '__main__':
    main()
