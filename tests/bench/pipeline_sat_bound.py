#!/usr/bin/env python3
"""The counting model of pipeline_flow_bound.py as a SAT problem, for CaDiCaL.

The same model (README.md, "The flow bound"): C_type_d_t counts the slots of
one type started on device d by grid time t. Here every count is an integer
in order encoding (a literal per value, "C >= k"), sums of counts are built
by adders over those literals, and every row of the MIP becomes clauses, so
that the SAT problem has a model exactly when the MIP has an integer point.
An unsatisfiable answer is therefore a proof that no schedule ends by T,
hence a bound of T plus one grid step; a satisfiable one decodes to a
schedule that `shardlab pipeline --check` re-checks.

--fix pins every count to a schedule's own; with --free A:B only those
before time A and, from B on, those of the schedule moved earlier to end by
T, so that the solver rearranges [A, B) only. An unsatisfiable answer then
says only that no schedule in that neighbourhood ends by T: it is no bound.

Usage: tests/bench/pipeline_sat_bound.py --stages 8 --microbatches 20
       --FB 2.5 --comm 0.25 --mem-cap 9 --makespan 60 [--limit 600]
       [--cnf FILE] [--target sat|unsat] [--symmetric] [--decode-to SCHEDULE.json]
       [--fix SCHEDULE.json [--free A:B]]
Prints one JSON line: {"makespan": T, "status": "feasible" | "infeasible" |
"unknown", "seconds": ..., "variables": ..., "clauses": ...}.
"""

import argparse
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import time
from fractions import Fraction

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pipeline_flow_bound import (Model, counts_of_schedule, problem_arguments, seconds,  # noqa: E402
                                 schedule_of_counts, starts_of_schedule)


class Cnf:
    def __init__(self):
        self.nvars = 0
        self.clauses = []
        self.true = self.new()
        self.clauses.append([self.true])

    def new(self):
        self.nvars += 1
        return self.nvars

    def add(self, clause):
        self.clauses.append(clause)


class Int:
    """An integer in [0, ub] in order encoding: ge[k] is the literal of
    "value >= k" for k = 1..ub (ge[0] is true)."""

    def __init__(self, cnf, ub, lits=None):
        self.ub = ub
        if lits is None:
            lits = [cnf.new() for _ in range(ub)]
            for k in range(1, ub):  # >= k+1 implies >= k
                cnf.add([-lits[k], lits[k - 1]])
        self.lits = lits

    def ge(self, cnf, k):
        """The literal of value >= k, or None for false (k > ub); true for k <= 0."""
        if k <= 0:
            return cnf.true
        if k > self.ub:
            return None
        return self.lits[k - 1]


class Encoder:
    def __init__(self, model):
        self.m = model
        self.cnf = Cnf()
        self.ints = {}  # variable name -> Int
        self.sums = {}  # sorted tuple of names -> Int
        self.zero = Int(self.cnf, 0, [])
        self.tokens_of = {}
        for name, _, f_copy, b_copy, _ in model.types():
            ops = [(kind, c) for kind, c in (('F', f_copy), ('B', b_copy)) if c is not None]
            self.tokens_of[name] = ops or [('W', int(name[1]))]

    def tokens(self, name):
        """The per-device operations a count's slot type holds, as (kind,
        copy): ('F', c) and ('B', c) from the model's slot types, ('W', c)
        for a single W."""
        return self.tokens_of[self.type_of(name)]

    def ub_of(self, name):
        """The most slots of a count's type any schedule starts: the fewest
        micro-batches of the copies its operations belong to."""
        return min(self.m.count[c] for _, c in self.tokens(name))

    def int_of(self, name):
        if name is None:
            return self.zero
        if name not in self.ints:
            self.ints[name] = Int(self.cnf, self.ub_of(name))
        return self.ints[name]

    def add2(self, x, y, cap):
        """Z = X + Y, exactly, clipped: sums above cap are forbidden (sound
        where the model itself implies them impossible, see sum_of)."""
        cnf = self.cnf
        uz = min(x.ub + y.ub, cap)
        z = Int(cnf, uz)
        for i in range(x.ub + 1):
            for j in range(y.ub + 1):
                if i + j == 0:
                    continue
                # X >= i and Y >= j imply Z >= i + j
                zl = z.ge(cnf, i + j)
                clause = []
                if i:
                    clause.append(-x.ge(cnf, i))
                if j:
                    clause.append(-y.ge(cnf, j))
                if zl is not None:
                    clause.append(zl)
                cnf.add(clause)
        for i in range(x.ub + 1):
            for j in range(y.ub + 1):
                # X < i+1 and Y < j+1 imply Z < i+j+1
                zl = z.ge(cnf, i + j + 1)
                if zl is None:
                    continue
                clause = [-zl]
                xl, yl = x.ge(cnf, i + 1), y.ge(cnf, j + 1)
                if xl is not None:
                    clause.append(xl)
                if yl is not None:
                    clause.append(yl)
                cnf.add(clause)
        return z

    def sum_of(self, names):
        """The sum of counts (a list of variable names; a name twice counts
        twice). Terms are grouped by an operation they share on one device,
        distinct slot types only: such a group counts distinct slots holding
        that operation, so by the totals rows (and counts never falling) it
        never exceeds the copy's micro-batches, and is clipped there."""
        names = sorted(n for n in names if n is not None)
        key = tuple(names)
        if key in self.sums:
            return self.sums[key]
        left = list(names)
        total = None
        while left:
            # Each (operation, device) group collects, in the order of left,
            # the first term of each slot type; the largest group wins, ties
            # to the least (operation, device).
            groups = {}
            for n in left:
                dev, typ = self.device_of(n), self.type_of(n)
                for tok in self.tokens(n):
                    mem, seen = groups.setdefault((tok, dev), ([], set()))
                    if typ not in seen:
                        seen.add(typ)
                        mem.append(n)
            (best, _), (members, _) = max(
                sorted(groups.items()), key=lambda kv: len(kv[1][0]))
            for n in members:
                left.remove(n)
            cap = self.m.count[best[1]]
            acc = None
            for n in members:
                v = self.int_of(n)
                acc = v if acc is None else self.add2(acc, v, cap)
            total = acc if total is None else self.add2(total, acc, 10 ** 9)
        if total is None:
            total = self.zero
        self.sums[key] = total
        return total

    @staticmethod
    def type_of(name):
        return name.split('_')[1]

    @staticmethod
    def device_of(name):
        return int(name.split('_')[2])

    def at_most(self, pos, neg, rhs):
        """sum(pos) <= sum(neg) + rhs."""
        cnf = self.cnf
        p, n = self.sum_of(pos), self.sum_of(neg)
        for v in range(1, p.ub + 1):
            w = v - rhs
            if w <= 0:
                continue
            nl = n.ge(cnf, w)
            cnf.add([-p.ge(cnf, v)] + ([nl] if nl is not None else []))
        if rhs < 0:  # even p = 0 needs n >= -rhs
            nl = n.ge(cnf, -rhs)
            cnf.add([nl] if nl is not None else [])

    def slot_clauses(self):
        """One slot at a time on a device (the model's slot_rows), encoded
        directly: each type runs at most one slot over [t, t+1) (its count
        rose by at most one over its duration), and at most one type runs."""
        m, cnf = self.m, self.cnf
        types = m.types()
        busy_of = {}
        for d in range(m.p):
            for t in range(m.n):
                busy = set()
                for name, dur, *_ in types:
                    a, b = m.var(name, d, t), m.var(name, d, t - dur)
                    if a is None or a == b:
                        continue
                    if (a, b) not in busy_of:
                        A, B = self.int_of(a), self.int_of(b)
                        lit = cnf.new()
                        for k in range(1, A.ub + 1):
                            bl = B.ge(cnf, k)
                            cnf.add([-A.ge(cnf, k), lit] + ([bl] if bl is not None else []))
                            if A.ge(cnf, k + 1) is not None:
                                cnf.add([-A.ge(cnf, k + 1)] + ([bl] if bl is not None else []))
                        busy_of[a, b] = lit
                    busy.add(busy_of[a, b])
                busy = sorted(busy)
                for i in range(len(busy)):
                    for j in range(i + 1, len(busy)):
                        cnf.add([-busy[i], -busy[j]])

    def encode(self):
        m = self.m
        self.slot_clauses()
        for i, (terms, sense, rhs) in enumerate(m.rows):
            if i in m.slot_rows:
                continue
            terms = {v: Fraction(c) for v, c in terms.items() if c != 0}
            scale = 1
            for c in list(terms.values()) + [Fraction(rhs)]:
                scale = scale * c.denominator // math.gcd(scale, c.denominator)
            pos, neg = [], []
            for v, c in terms.items():
                k = int(c * scale)
                (pos if k > 0 else neg).extend([v] * abs(k))
            r = Fraction(rhs) * scale
            assert r.denominator == 1
            r = int(r)
            if sense in ('<=', '='):
                self.at_most(pos, neg, r)
            if sense in ('>=', '='):
                self.at_most(neg, pos, -r)

    def fix(self, values, every=True):
        """Unit clauses that pin every count to a point's value (a count
        values lacks is 0), or with every=False only the counts it has."""
        cnf = self.cnf
        for name, x in self.ints.items():
            if not every and name not in values:
                continue
            val = values.get(name, 0)
            for k in range(1, x.ub + 1):
                cnf.add([x.ge(cnf, k)] if val >= k else [-x.ge(cnf, k)])
            if val > x.ub:
                cnf.add([])

    def write(self, path):
        with open(path, 'w') as f:
            f.write('p cnf %d %d\n' % (self.cnf.nvars, len(self.cnf.clauses)))
            f.write(''.join(' '.join(map(str, c)) + ' 0\n' for c in self.cnf.clauses))

    def value_of(self, truth):
        """The counts of a SAT model (truth: var -> bool)."""
        return {name: sum(1 for l in x.lits if truth.get(l, False)) for name, x in self.ints.items()}


def counts_around(model, schedule, free):
    """The counts of a neighbourhood of a schedule (the CLI's schedule JSON)
    for a search at the model's makespan T: before grid step free[0] the
    schedule's own, from free[1] on those of the schedule moved earlier by
    its makespan less T, and none in between (the solver's to choose)."""
    starts = starts_of_schedule(model, schedule)
    shift = int((Fraction(schedule['makespan']).limit_denominator(10**6) - model.T) / model.g)
    values = {}
    for (name, d), (lo, hi) in model.window.items():
        ts = starts.get((name, d), [])
        for t in range(lo, hi + 1):
            if free[0] <= t < free[1]:
                continue
            moved = shift if t >= free[1] else 0
            values['C_%s_%d_%d' % (name, d, t)] = sum(1 for x in ts if x - moved <= t)
    return values


def run_cadical(path, limit, target=None):
    started = time.monotonic()
    cadical = shutil.which('cadical')
    if not cadical:
        sys.exit('cadical (Debian cadical) not found')
    options = ['--' + target] if target else []
    proc = subprocess.run([cadical, '-q', *options, '-t', str(math.ceil(limit)), path],
                          capture_output=True, text=True)
    wall = time.monotonic() - started
    truth = {}
    status = 'unknown'
    for line in proc.stdout.splitlines():
        if line.startswith('s '):
            status = {'s SATISFIABLE': 'feasible', 's UNSATISFIABLE': 'infeasible'}.get(
                line.strip(), 'unknown')
        elif line.startswith('v '):
            for tok in line[2:].split():
                x = int(tok)
                if x:
                    truth[abs(x)] = x > 0
    return status, wall, truth


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    problem_arguments(ap)
    ap.add_argument('--limit', type=seconds, default=600,
                    help='seconds for cadical, which counts whole ones (a fraction is rounded up)')
    ap.add_argument('--cnf', default=None, help='keep the CNF here')
    ap.add_argument('--target', choices=['sat', 'unsat'], default=None,
                    help="cadical's option set for satisfiable or unsatisfiable problems")
    ap.add_argument('--symmetric', action='store_true',
                    help='mirror-symmetric points only (finds schedules; no bound)')
    ap.add_argument('--fix', default=None,
                    help="a schedule JSON (the CLI's --json): pin the counts to its own")
    ap.add_argument('--free', default=None, metavar='A:B',
                    help='with --fix: pin only before time A and, moved to end by the makespan, '
                    'from B on (a search for a schedule in that neighbourhood)')
    ap.add_argument('--decode-to', default=None,
                    help='where a satisfiable answer writes its schedule JSON')
    a = ap.parse_args()
    if a.makespan is None:
        sys.exit('--makespan is needed')
    if a.stages % 2 or a.stages < 2:
        sys.exit('the bidirectional placement needs an even number of devices')
    free = None
    if a.free:
        if not a.fix:
            sys.exit('--free needs --fix')
        try:
            free = [Fraction(x) for x in a.free.split(':')]
        except ValueError:
            free = []
        if len(free) != 2:
            sys.exit('--free %s: A:B (two times) was expected' % a.free)
        if free[0] > free[1]:
            sys.exit('--free %s: A <= B was expected' % a.free)
    model = Model(a)
    model.build()
    enc = Encoder(model)
    started = time.monotonic()
    enc.encode()
    if a.fix:
        with open(a.fix) as f:
            schedule = json.load(f)
        if free:
            enc.fix(counts_around(model, schedule, [int(x / model.g) for x in free]), every=False)
        else:
            values, why = counts_of_schedule(model, schedule)
            if values is None:
                sys.exit(why)
            enc.fix(values)
    built = time.monotonic() - started
    tmp = None
    path = a.cnf
    if path is None:
        tmp = tempfile.mkdtemp(prefix='sat_bound_')
        path = os.path.join(tmp, 'model.cnf')
    enc.write(path)
    status, wall, truth = run_cadical(path, a.limit, a.target)
    out = {'makespan': float(model.T), 'grid': float(model.g), 'status': status,
           'seconds': round(wall, 2), 'encode_seconds': round(built, 2),
           'variables': enc.cnf.nvars, 'clauses': len(enc.cnf.clauses)}
    if status == 'feasible' and a.decode_to:
        values = enc.value_of(truth)
        with open(a.decode_to, 'w') as f:
            json.dump(schedule_of_counts(model, lambda v: values.get(v, 0)), f)
    print(json.dumps(out))
    if tmp:
        shutil.rmtree(tmp)


if __name__ == '__main__':
    main()
