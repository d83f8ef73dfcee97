#!/usr/bin/env python3
"""Benchmarks of the pipeline planner against CBC (and HiGHS) and HEFT.

Prints tables; never passes or fails on time. Sections (run all by default):
  equal    p <= 8, m <= 8, F = B = W = 1, memory cap p, linear placement: the
           planner's time to its proof against CBC given --mip-limit seconds
           on the emitted MIP (issue 18's optimality bar)
  dag      random operator DAGs of 50-300 operations on 4-8 devices with
           free placement, then small ones (12-36 operations on 2-3 devices):
           HEFT, the planner (gap to its bound), CBC and HiGHS at equal time
  dualpipe DualPipe's example (8 ranks, 20 micro-batches, F = B = W = 1,
           F&B = 3) on DualPipe's placement under its peak memory (cap 9)
  mipsize  where the MIP stops being useful: CBC and HiGHS (node, npm highs)
           on growing uniform problems, time to first solution and to proof
  pairs    issue 24's bar on DualPipe's example (cap PP+1 = 9): for F&B in
           {2, 2.5, 3} and comm in {0, 0.25, 0.5}, the planner's bubble
           against half of DualPipe's (both over DualPipe's own busy time per
           device), else a bound that rules half out and a schedule better
           than every published one; --pairs-limit seconds per cell

Usage: tests/bench/pipeline_bench.py [--cli build/native/shardlab]
       [--sections equal,dag,dualpipe,mipsize,pairs] [--quick] [--mip-limit 60]
       [--dag-limit 10] [--dag-count 12] [--dag-small 6] [--pairs-limit 20]
       [--plan-work N]

--plan-work N stops every planner run after N search nodes instead of at
its time limit (the CLI's --work): the planner's figures are then the same
on any machine and under any load (CBC and HiGHS keep their limits). The
header line gives the load average, since timed figures depend on it.
"""
import argparse
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time

from pipeline_flow_bound import seconds

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def run(args, timeout=None):
    """(completed process or None when killed at the timeout, wall seconds)."""
    start = time.monotonic()
    try:
        proc = subprocess.run(args, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, time.monotonic() - start
    return proc, time.monotonic() - start


class Bench:
    def __init__(self, opts):
        self.cli = opts.cli
        self.opts = opts
        self.tmp = tempfile.mkdtemp(prefix='pipeline-bench-')
        self.cbc = shutil.which('cbc')
        self.node = shutil.which('node')

    # ---- the planner through the CLI ----
    def plan(self, problem_args, limit, extra=()):
        if self.opts.plan_work:
            limit = 1e6  # the work decides
            extra = ('--work', str(self.opts.plan_work), *extra)
        proc, wall = run([self.cli, 'pipeline', *problem_args, '--plan', '--time-limit',
                          str(limit), '--json', *extra])
        if proc.returncode != 0:
            return {'error': proc.stderr.strip(), 'wall': wall}
        out = json.loads(proc.stdout)
        # Progress lines on stderr: "# T s makespan X bound Y gap G% (source)".
        proof = None
        for line in proc.stderr.splitlines():
            m = re.match(r'# ([\d.]+) s makespan (\S+) bound (\S+) gap ([\d.]+)%', line)
            if m and float(m.group(4)) == 0.0 and proof is None:
                proof = float(m.group(1))
        planner = out.get('planner') or {}
        return {'makespan': out['makespan'], 'bound': out.get('lower_bound'),
                'optimal': out.get('optimal'), 'valid': out.get('valid'), 'wall': wall,
                'proof': proof if out.get('optimal') else None,
                'seconds': out.get('seconds')}

    def emit_lp(self, problem_args, name):
        path = os.path.join(self.tmp, name + '.lp')
        proc, _ = run([self.cli, 'pipeline', *problem_args, '--emit-lp', path])
        if proc.returncode != 0:
            raise RuntimeError(proc.stderr)
        size = {}
        for key in ('rows', 'columns', 'binaries'):
            m = re.search(r'(\d+) ' + key, proc.stdout + proc.stderr)
            if m:
                size[key] = int(m.group(1))
        return path, size

    # ---- CBC on an LP file ----
    def solve_cbc(self, lp, limit):
        if not self.cbc:
            return {'status': 'no cbc'}
        sol = lp + '.sol'
        if os.path.exists(sol):
            os.remove(sol)
        proc, wall = run([self.cbc, lp, 'sec', str(limit), 'solve', 'solu', sol],
                         timeout=limit * 2 + 30)
        result = {'wall': wall, 'status': 'no solution', 'objective': None, 'bound': None,
                  'first': None}
        if proc is None:
            result['status'] = f'killed at {limit * 2 + 30:g} s'
            return result
        if os.path.exists(sol):
            first = open(sol).readline()
            m = re.match(r'(Optimal|Stopped on time|Stopped on \w+) - objective value\s+(\S+)', first)
            if m:
                result['status'] = 'optimal' if m.group(1) == 'Optimal' else 'time limit'
                result['objective'] = float(m.group(2))
            elif first.startswith('Infeasible'):
                result['status'] = 'infeasible'
        log = proc.stdout
        m = re.search(r'best possible (\S+)\)', log) or re.search(r'best possible (\S+)', log)
        if m:
            result['bound'] = float(m.group(1).rstrip(','))
        if result['status'] == 'optimal':
            result['bound'] = result['objective']
        # Time of the first solution: the first "Integer solution of X found ... (T seconds)".
        m = re.search(r'solution of (\S+) found.*?\(([\d.]+) seconds\)', log)
        if m:
            result['first'] = float(m.group(2))
        return result

    # ---- HiGHS (npm highs under node) on an LP file ----
    def solve_highs(self, lp, limit):
        highs = os.path.join(ROOT, 'node_modules/highs')
        if not self.node or not os.path.isdir(highs):
            return {'status': 'no highs'}
        script = ('const h = await (await import(process.argv[1])).default();'
                  'const fs = await import("node:fs");'
                  'const t = performance.now();'
                  'const r = h.solve(fs.readFileSync(process.argv[2], "utf8"),'
                  ' {time_limit: Number(process.argv[3])});'
                  'console.log(JSON.stringify({status: r.Status, objective: r.ObjectiveValue,'
                  ' seconds: (performance.now() - t) / 1000}));')
        proc, wall = run([self.node, '--input-type=module', '-e', script,
                          os.path.join(highs, 'build/highs.mjs'), lp, str(limit)],
                         timeout=limit * 2 + 30)
        if proc is None:
            return {'status': f'killed at {limit * 2 + 30:g} s', 'wall': wall}
        if proc.returncode != 0:
            return {'status': 'error', 'wall': wall}
        out = json.loads(proc.stdout.strip().splitlines()[-1])
        out['wall'] = wall
        return out

    def write_problem(self, name, problem):
        path = os.path.join(self.tmp, name + '.json')
        with open(path, 'w') as f:
            json.dump(problem, f)
        return path


def planner_budget(b, limit):
    return f'{b.opts.plan_work} nodes' if b.opts.plan_work else f'{limit:g} s'


def fmt(v, digits=3):
    if v is None:
        return '-'
    if isinstance(v, float):
        if v == int(v) and abs(v) < 1e9:
            return str(int(v))
        return f'{v:.{digits}g}'
    return str(v)


def table(headers, rows):
    widths = [max(len(str(h)), *(len(str(r[i])) for r in rows)) for i, h in enumerate(headers)]
    print('| ' + ' | '.join(str(h).ljust(w) for h, w in zip(headers, widths)) + ' |')
    print('|' + '|'.join('-' * (w + 2) for w in widths) + '|')
    for r in rows:
        print('| ' + ' | '.join(str(c).ljust(w) for c, w in zip(r, widths)) + ' |')
    sys.stdout.flush()


def section_equal(b):
    print('\n## equal: F = B = W = 1, cap p, linear placement (planner vs CBC on the emitted MIP)\n')
    ps = [2, 4, 6, 8] if b.opts.quick else range(2, 9)
    ms = [1, 2, 4, 8] if b.opts.quick else range(1, 9)
    rows = []
    worse = slower = 0
    for p in ps:
        for m in ms:
            args = ['--stages', str(p), '--microbatches', str(m), '--F', '1', '--B', '1', '--W',
                    '1', '--mem-cap', str(p), '--placement', 'linear']
            r = b.plan(args, 60)
            lp, size = b.emit_lp(args, f'equal_{p}_{m}')
            c = b.solve_cbc(lp, b.opts.mip_limit)
            proof = r.get('seconds') if r.get('optimal') else None
            if proof is None:
                proof = r['wall'] if r.get('optimal') else None
            if c.get('objective') is not None and r['makespan'] > c['objective'] + 1e-9:
                worse += 1
            if c['status'] == 'optimal' and (proof is None or proof > c['wall']):
                slower += 1
            rows.append([p, m, 3 * p * m, size.get('binaries', '-'), fmt(r['makespan']),
                         'yes' if r.get('optimal') else 'no', fmt(proof),
                         fmt(c.get('objective')), c['status'], fmt(c.get('wall'))])
    table(['p', 'm', 'ops', 'binaries', 'planner', 'proven', 'planner s (CLI wall)', 'CBC',
           'CBC status', 'CBC s'], rows)
    print(f'\nplanner worse than CBC on {worse} instances; slower to its proof on {slower}')


def random_dag(seed, ops, devices, microbatches=2):
    rng = random.Random(seed)
    n = max(3, -(-ops // (3 * microbatches)))
    operators = []
    for i in range(n):
        f = rng.randint(1, 4)
        op = {'name': f'op{i}', 'F': f, 'B': f + rng.randint(0, 3), 'W': rng.randint(0, 2),
              'act': 1}
        r = rng.random()
        if r < 0.15:
            op['devices'] = [rng.randrange(devices)]
        elif r < 0.4:
            op['devices'] = sorted(rng.sample(range(devices), min(devices, rng.randint(2, 3))))
        operators.append(op)
    edges = []
    for i in range(1, n):
        for src in sorted({i - 1 - rng.randrange(min(i, 4)) for _ in range(rng.randint(1, 2))}):
            edges.append({'from': f'op{src}', 'to': f'op{i}', 'comm': 0.5 * rng.randint(1, 4)})
    return {'format': 'shardlab-pipeline-problem', 'version': 1,
            'name': f'random DAG {seed}: {n} operators x {microbatches} micro-batches',
            'devices': devices, 'microbatches': microbatches, 'comm': 1,
            'operators': operators, 'edges': edges}


def section_dag(b):
    limit = b.opts.dag_limit
    print(f'\n## dag: random operator DAGs, free placement, {planner_budget(b, limit)} for the '
          f'planner, {limit:g} s for CBC and HiGHS\n')
    rows = []
    gaps = []
    beat_heft = beat_mip = proven = 0
    count = b.opts.dag_count
    # The sizes (50 to 300 ops on 4 to 8 devices), then small ones
    # (12 to 36 ops on 2 or 3 devices) where proofs are in reach.
    sizes = [(50 + (250 * k) // max(1, count - 1), 4 + k % 5, 1000 + k) for k in range(count)]
    sizes += [(12 + 6 * k, 2 + k % 2, 2000 + k) for k in range(b.opts.dag_small)]
    for k, (ops, devices, seed) in enumerate(sizes):
        problem = random_dag(seed, ops, devices)
        path = b.write_problem(f'dag_{k}', problem)
        h = b.plan([path], limit, ['--heft-only', '1'])
        r = b.plan([path], limit)
        lp, size = b.emit_lp([path], f'dag_{k}')
        c = b.solve_cbc(lp, limit)
        hi = b.solve_highs(lp, limit)
        n_ops = 3 * len(problem['operators']) * problem['microbatches']
        heft = h.get('makespan') if h.get('valid') else None
        if heft is not None and r['makespan'] < heft:
            beat_heft += 1
        mips = [v for v in (c.get('objective'), hi.get('objective')) if v is not None]
        if not mips or r['makespan'] <= min(mips) + 1e-9:
            beat_mip += 1
        gap = (r['makespan'] - r['bound']) / r['makespan'] if r.get('bound') is not None else None
        if seed < 2000 and gap is not None:
            gaps.append(gap)
        proven += bool(r.get('optimal'))
        print(f'# seed {seed}: {n_ops} ops, {devices} devices: planner {r["makespan"]} bound '
              f'{r.get("bound")}, CBC {c.get("objective")}, HiGHS {hi.get("objective")}',
              file=sys.stderr, flush=True)
        rows.append([seed, n_ops, devices, fmt(heft), fmt(r['makespan'], 5),
                     fmt(r.get('bound'), 5), f'{100 * gap:.1f}%' if gap is not None else '-',
                     'yes' if r.get('optimal') else 'no', fmt(c.get('objective'), 5), c['status'],
                     fmt(hi.get('objective'), 5), hi.get('status', '-'),
                     size.get('binaries', '-')])
    table(['seed', 'ops', 'devices', 'HEFT', 'planner', 'planner bound', 'gap', 'proven', 'CBC',
           'CBC status', 'HiGHS', 'HiGHS status', 'MIP binaries'], rows)
    gaps.sort()
    if gaps:
        median = gaps[len(gaps) // 2] if len(gaps) % 2 else (gaps[len(gaps) // 2 - 1] +
                                                               gaps[len(gaps) // 2]) / 2
        print(f'\n50-300 ops: median gap {100 * median:.1f}%, max {100 * gaps[-1]:.1f}%')
    print(f'planner below HEFT on {beat_heft}/{len(rows)}; at or below CBC and HiGHS (or they '
          f'without a schedule) on {beat_mip}/{len(rows)}; proven optimal on {proven}')


def section_dualpipe(b):
    print("\n## dualpipe: DualPipe's example, bidirectional placement, cap = PP+1 = 9\n")
    rows = []
    example = os.path.join(ROOT, 'examples/pipeline/dualpipe_example.json')
    for keep in ('0', '0.5', '1'):
        for cap in ('9', '8', '7'):
            args = [example, '--placement', 'bidirectional', '--mem-cap', cap, '--keep', keep]
            proc, _ = run([b.cli, 'pipeline', *args, '--schedule', 'DualPipe', '--json'])
            dp = json.loads(proc.stdout) if proc.returncode in (0, 3) and proc.stdout else None
            r = b.plan(args, 60)
            idle = None
            if 'makespan' in r:
                idle = r['makespan'] - 60
            rows.append([keep, cap, fmt(dp['makespan']) if dp else '-',
                         fmt(max(dp['bubble']['global'])) if dp else '-',
                         'yes' if dp and dp['valid'] else 'no', fmt(r.get('makespan')),
                         fmt(idle), fmt(r.get('bound')), 'yes' if r.get('optimal') else 'no',
                         fmt(r.get('seconds') or r.get('wall'))])
    table(['keep', 'cap', 'DualPipe makespan', 'DualPipe idle/device', 'DualPipe fits',
           'planner', 'planner idle/device', 'bound', 'proven', 'seconds'], rows)


PUBLISHED = ['GPipe', '1F1B', 'Interleaved1F1B', 'ZB-H1', 'ZB-H2', 'ZBV', 'DualPipe',
             'DualPipeV', 'Chimera']


def section_pairs(b):
    limit = b.opts.pairs_limit
    print(f"\n## pairs: DualPipe's example (8 ranks, 20 micro-batches, F = B = W = 1, cap 9), "
          f"{planner_budget(b, limit)} per cell\n")
    print('A bubble is makespan minus DualPipe\'s busy time on a device (largest over devices); '
          'half is reached when the planner\'s makespan is at most (DualPipe + least busy) / 2. '
          'Published: the best valid one of ' + ', '.join(PUBLISHED) + '.\n')
    example = os.path.join(ROOT, 'examples/pipeline/dualpipe_example.json')
    rows = []
    met = 0
    for fb in ('2', '2.5', '3'):
        for comm in ('0', '0.25', '0.5'):
            args = [example, '--FB', fb, '--comm', comm]
            published = {}
            dp = None
            for name in PUBLISHED:
                proc, _ = run([b.cli, 'pipeline', *args, '--schedule', name, '--json'])
                if proc.returncode not in (0, 3) or not proc.stdout:
                    continue  # not applicable to this problem
                out = json.loads(proc.stdout)
                if name == 'DualPipe':
                    dp = out
                if out['valid']:
                    published[name] = out['makespan']
            best_name = min(published, key=published.get)
            best = published[best_name]
            least_busy = min(dp['busy'])
            dp_bubble = dp['makespan'] - least_busy
            half = (dp['makespan'] + least_busy) / 2
            r = b.plan(args, limit)
            ms, bound = r.get('makespan'), r.get('bound')
            halved = ms is not None and ms <= half + 1e-9
            rules_out = bound is not None and bound > half + 1e-9
            better = ms is not None and ms < best - 1e-9
            ok = halved or (rules_out and better)
            met += ok
            rows.append([fb, comm, fmt(dp['makespan'], 6), fmt(dp_bubble, 6), f'{fmt(best, 6)} ({best_name})',
                         fmt(half, 6), fmt(ms, 6), fmt(ms - least_busy if ms is not None else None, 6),
                         fmt(bound, 6), 'yes' if r.get('optimal') else 'no',
                         'yes' if halved else 'no', 'yes' if rules_out else 'no',
                         'yes' if better else 'no', 'met' if ok else 'NOT MET'])
    table(['F&B', 'comm', 'DualPipe', 'DualPipe bubble', 'best published', 'half at',
           'planner', 'planner bubble', 'bound', 'optimal', 'halved', 'bound rules half out',
           'better than all published', 'bar'], rows)
    print(f'\nbar met on {met}/{len(rows)} cells')


def section_mipsize(b):
    limit = b.opts.mip_limit
    print(f'\n## mipsize: where the MIP stops being useful (uniform, F = B = W = 1, cap p, '
          f'linear; {limit} s)\n')
    rows = []
    sizes = [(2, 2), (3, 3), (4, 4), (4, 6), (4, 8), (6, 6), (8, 8), (8, 16), (16, 16)]
    if b.opts.quick:
        sizes = sizes[:6]
    for p, m in sizes:
        args = ['--stages', str(p), '--microbatches', str(m), '--F', '1', '--B', '1', '--W', '1',
                '--mem-cap', str(p), '--placement', 'linear']
        lp, size = b.emit_lp(args, f'size_{p}_{m}')
        c = b.solve_cbc(lp, limit)
        h = b.solve_highs(lp, limit)
        r = b.plan(args, limit)
        rows.append([p, m, 3 * p * m, size.get('binaries', '-'), size.get('rows', '-'),
                     fmt(r['makespan']), fmt(c.get('objective')), c['status'],
                     fmt(c.get('first')), fmt(c.get('wall')), fmt(c.get('bound')),
                     fmt(h.get('objective')), h.get('status'), fmt(h.get('wall'))])
    table(['p', 'm', 'ops', 'binaries', 'rows', 'planner (proven)', 'CBC', 'CBC status',
           'CBC first s', 'CBC s', 'CBC bound', 'HiGHS', 'HiGHS status', 'HiGHS s'], rows)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument('--cli', default=os.path.join(ROOT, 'build/native/shardlab'))
    ap.add_argument('--sections', default='equal,dag,dualpipe,mipsize,pairs')
    ap.add_argument('--quick', action='store_true', help='fewer instances')
    ap.add_argument('--mip-limit', type=seconds, default=60)
    ap.add_argument('--dag-limit', type=seconds, default=10)
    ap.add_argument('--dag-count', type=int, default=12)
    ap.add_argument('--dag-small', type=int, default=6, help='small DAGs after the large ones')
    ap.add_argument('--pairs-limit', type=seconds, default=20)
    ap.add_argument('--plan-work', type=int, default=0,
                    help='search nodes per planner run instead of its time limit (0: time)')
    opts = ap.parse_args()
    b = Bench(opts)
    print(f'# pipeline planner benchmark ({time.strftime("%Y-%m-%d %H:%M")}, '
          f'{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}, CLI {opts.cli}'
          + (f', {opts.plan_work} nodes per planner run' if opts.plan_work else '') + ')')
    for name in opts.sections.split(','):
        {'equal': section_equal, 'dag': section_dag, 'dualpipe': section_dualpipe,
         'mipsize': section_mipsize, 'pairs': section_pairs}[name](b)
    shutil.rmtree(b.tmp, ignore_errors=True)


if __name__ == '__main__':
    main()
