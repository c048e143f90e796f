# XLA's plans for batched contractions under jax.jit on Auto axes, pinned by
# framework/src/test/java/dev/shardlings/jit/BatchedDotPlansTest.java (which reads batched_dot_plans.txt, this
# script's output).
# Run: XLA_FLAGS=--xla_force_host_platform_device_count=8 /work/jaxvenv/bin/python batched_dot_plans.py \
#          > batched_dot_plans.txt
# (JAX 0.10.2, CPU). For each einsum and every pair of operand layouts on a 2 x 2 mesh ('x', 'y') — each of the
# three dimensions None, one axis or two, every mesh axis used at most once: 13 layouts an operand, 169 pairs — it
# prints one header line, the output sharding's spec as JAX spells it, and then one line per collective of the
# compiled per-device program, in program order:
#   == SUBSCRIPTS LHS_SPEC RHS_SPEC -> OUT_SPEC
#      kind operand-shape -> result-shape [dim d ]groups
# Specs are written P(x,None,(x,y)); groups as device ids {{0,2},{1,3}} ({{0,1,2,3}} for all devices), a
# collective-permute's as its source-target pairs sorted by source; an all-to-all's operand as its tuple of pieces
# (count x piece shape).
import itertools
import re
import numpy as np
import jax
import jax.numpy as jnp
from jax.sharding import AxisType, NamedSharding as NS, PartitionSpec as P

COLL = ('all-reduce', 'all-gather', 'all-to-all', 'collective-permute', 'reduce-scatter')
SIZE = 4  # every dimension: divisible by every layout, and both operands of one size (the layout decides alone)


def iota_groups(text):
    # [G,N]<=[dims]T(perm)
    m = re.match(r'\[(\d+),(\d+)\]<=\[([\d,]+)\](?:T\(([\d,]+)\))?', text)
    g, n = int(m.group(1)), int(m.group(2))
    dims = [int(v) for v in m.group(3).split(',')]
    a = np.arange(int(np.prod(dims))).reshape(dims)
    if m.group(4):
        a = a.transpose([int(v) for v in m.group(4).split(',')])
    return a.reshape(g, n).tolist()


def mesh_groups(text):
    # mesh['axis_0'=2,'axis_1'=2], device_ids=([2,2]T(1,0)) {'axis_1'}; a sub-axis 'axis_k':(pre)size
    m = re.match(r"mesh\[([^\]]*)\](?:, device_ids=\(\[([\d,]+)\](?:T\(([\d,]+)\))?\))? \{([^}]*)\}", text)
    sizes = [int(kv.split('=')[1]) for kv in m.group(1).split(',')]
    names = [kv.split('=')[0].strip("'") for kv in m.group(1).split(',')]
    ids = np.arange(int(np.prod(sizes)))
    if m.group(2):
        ids = ids.reshape([int(v) for v in m.group(2).split(',')])
        if m.group(3):
            ids = ids.transpose([int(v) for v in m.group(3).split(',')])
    subs = {}
    for s in m.group(4).split(','):
        sm = re.match(r"\s*'([^']+)'(?::\((\d+)\)(\d+))?", s)
        subs[sm.group(1)] = (int(sm.group(2)), int(sm.group(3))) if sm.group(2) else None
    parts, chosen = [], []
    for name, size in zip(names, sizes):
        sub = subs.get(name, 'no')
        if sub is None or sub == 'no':
            parts.append(size)
            chosen.append(sub is None)
        else:
            pre, n = sub
            parts += [pre, n, size // (pre * n)]
            chosen += [False, True, False]
    ids = ids.reshape(parts)
    sel = [i for i, c in enumerate(chosen) if c]
    rest = [i for i, c in enumerate(chosen) if not c]
    return ids.transpose(rest + sel).reshape(-1, int(np.prod([parts[i] for i in sel]))).tolist()


def braces(groups):
    return '{' + ','.join('{' + ','.join(str(v) for v in g) + '}' for g in groups) + '}'


def groups(line):
    m = re.search(r'replica_groups=(\[[\d,]+\]<=\[[\d,]+\](?:T\([\d,]+\))?)', line)
    if m:
        return braces(iota_groups(m.group(1)))
    m = re.search(r"replica_groups=(mesh\[[^\]]*\](?:, device_ids=\([^)]*\)\))? \{[^}]*\})", line)
    if m:
        return braces(mesh_groups(m.group(1)))
    m = re.search(r'replica_groups=\{((?:\{[\d,]+\},?)+)\}', line)
    if m:
        return braces([[int(v) for v in g.split(',')] for g in re.findall(r'\{([\d,]+)\}', m.group(1))])
    m = re.search(r'source_target_pairs=\{(.*?)\}\}', line)
    if m:
        pairs = sorted([int(v) for v in p.split(',')] for p in re.findall(r'\{?(\d+,\d+)', m.group(1)))
        return braces(pairs)
    return braces([range(4)])


def shape_of(defs, name):
    t = defs[name]
    pieces = re.findall(r'([a-z]+\d*\[[\d,]*\])', t)
    if t.startswith('('):
        return f'{len(pieces)}x{pieces[0]}'
    return pieces[0]


def spec_text(spec):
    def entry(e):
        if e is None:
            return 'None'
        if isinstance(e, tuple):
            return e[0] if len(e) == 1 else '(' + ','.join(e) + ')'
        return e
    return 'P(' + ','.join(entry(e) for e in spec) + ')'


def layouts(rank):
    # each mesh axis on at most one dimension; two axes on one dimension in either order
    out = []
    for dx, dy in itertools.product(range(rank + 1), repeat=2):
        orders = [('x', 'y'), ('y', 'x')] if dx == dy < rank else [None]
        for order in orders:
            spec = [None] * rank
            if order is not None:
                spec[dx] = order
            else:
                if dx < rank:
                    spec[dx] = 'x'
                if dy < rank:
                    spec[dy] = 'y'
            out.append(P(*spec))
    return out


mesh = jax.make_mesh((2, 2), ('x', 'y'), axis_types=(AxisType.Auto,) * 2, devices=jax.devices()[:4])


def show(subscripts, sa, sb):
    a = jax.device_put(jnp.arange(SIZE ** 3, dtype=jnp.float32).reshape((SIZE,) * 3), NS(mesh, sa))
    b = jax.device_put(jnp.arange(SIZE ** 3, dtype=jnp.float32).reshape((SIZE,) * 3) % 7, NS(mesh, sb))
    f = jax.jit(lambda p, q: jnp.einsum(subscripts, p, q))
    text = f.lower(a, b).compile().as_text()
    defs = {}
    for line in text.splitlines():
        m = re.match(r'\s*(?:ROOT )?%(\S+) = (\(.*?\)|\S+) ', line)
        if m:
            defs[m.group(1)] = m.group(2)
    print('==', subscripts, spec_text(sa), spec_text(sb), '->', spec_text(f(a, b).sharding.spec))
    for line in text.splitlines():
        m = re.match(r'\s*(?:ROOT )?%(\S+) = (\(.*?\)|\S+) (' + '|'.join(COLL) + r')\(([^)]*)\)', line)
        if m:
            ops = [o.strip().lstrip('%') for o in m.group(4).split(',')]
            operand = f'{len(ops)}x' + shape_of(defs, ops[0]) if len(ops) > 1 else shape_of(defs, ops[0])
            dims = re.search(r'dimensions=\{(\d+)\}', line)
            print('  ', m.group(3), operand, '->', shape_of(defs, m.group(1)),
                  ('dim ' + dims.group(1) + ' ') if dims and m.group(3) == 'all-gather' else '' + '', groups(line),
                  sep=' ')


for subscripts in ('bij,bjk->bik', 'bqd,bkd->bqk', 'bqk,bkd->bqd'):
    for sa, sb in itertools.product(layouts(3), repeat=2):
        show(subscripts, sa, sb)
