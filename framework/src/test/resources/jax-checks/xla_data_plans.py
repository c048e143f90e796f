# The collectives XLA inserts for the programs XlaDataPlansTest pins (JAX 0.10.2, CPU).
# Run: XLA_FLAGS=--xla_force_host_platform_device_count=8 /work/jaxvenv/bin/python xla_data_plans.py
# Prints, per program, one line per collective of the compiled per-device program:
#   kind operand-shape -> result-shape groups
# (an all-to-all's operand is its tuple of pieces, printed as count x piece shape; groups are device ids).
import re
import numpy as np
import jax
import jax.numpy as jnp
from jax.sharding import Mesh, NamedSharding as NS, PartitionSpec as P

COLL = ('all-reduce', 'all-gather', 'all-to-all', 'collective-permute', 'reduce-scatter')


def iota_groups(text):
    # [G,N]<=[dims]T(perm) or [G,N]<=[n]
    m = re.match(r'\[(\d+),(\d+)\]<=\[([\d,]+)\](?:T\(([\d,]+)\))?', text)
    g, n = int(m.group(1)), int(m.group(2))
    dims = [int(v) for v in m.group(3).split(',')]
    a = np.arange(int(np.prod(dims))).reshape(dims)
    if m.group(4):
        a = a.transpose([int(v) for v in m.group(4).split(',')])
    return a.reshape(g, n).tolist()


def mesh_groups(text):
    # mesh['axis_0'=4,'axis_1'=2], device_ids=([4,2]T(1,0)) {'axis_1'}
    m = re.match(r"mesh\[([^\]]*)\](?:, device_ids=\(\[([\d,]+)\](?:T\(([\d,]+)\))?\))? \{([^}]*)\}", text)
    sizes = [int(kv.split('=')[1]) for kv in m.group(1).split(',')]
    names = [kv.split('=')[0].strip("'") for kv in m.group(1).split(',')]
    ids = np.arange(int(np.prod(sizes)))
    if m.group(2):
        d = [int(v) for v in m.group(2).split(',')]
        ids = ids.reshape(d)
        if m.group(3):
            ids = ids.transpose([int(v) for v in m.group(3).split(',')])
    ids = ids.reshape(sizes)
    # a sub-axis 'axis_k':(pre)size is the part of axis k after a major part of size pre: split axes into parts
    parts, labels = [], []
    subs = {}
    for s in m.group(4).split(','):
        sm = re.match(r"\s*'([^']+)'(?::\((\d+)\)(\d+))?", s)
        subs[sm.group(1)] = (int(sm.group(2)), int(sm.group(3))) if sm.group(2) else None
    for name, size in zip(names, sizes):
        sub = subs.get(name, 'no')
        if sub is None:
            parts.append(size); labels.append(True)
        elif sub == 'no':
            parts.append(size); labels.append(False)
        else:
            pre, n = sub
            for size_part, chosen in ((pre, False), (n, True), (size // (pre * n), False)):
                parts.append(size_part); labels.append(chosen)
    ids = ids.reshape(parts)
    sel = [i for i, c in enumerate(labels) if c]
    rest = [i for i, c in enumerate(labels) if not c]
    return ids.transpose(rest + sel).reshape(-1, int(np.prod([parts[i] for i in sel]))).tolist()


def groups(line):
    m = re.search(r'replica_groups=(\[[\d,]+\]<=\[[\d,]+\](?:T\([\d,]+\))?)', line)
    if m:
        return iota_groups(m.group(1))
    m = re.search(r"replica_groups=(mesh\[[^\]]*\](?:, device_ids=\([^)]*\)\))? \{[^}]*\})", line)
    if m:
        return mesh_groups(m.group(1))
    m = re.search(r'replica_groups=\{((?:\{[\d,]+\},?)+)\}', line)
    if m:
        return [[int(v) for v in g.split(',')] for g in re.findall(r'\{([\d,]+)\}', m.group(1))]
    if 'replica_groups={}' in line:
        return 'all devices'
    m = re.search(r'source_target_pairs=\{(.*?)\}\}', line)
    if m:
        return 'pairs ' + m.group(1) + '}'
    return 'all'


def shape_of(defs, name):
    t = defs[name]
    pieces = re.findall(r'([a-z]\d+\[[\d,]*\])', t)
    if t.startswith('('):
        return f'{len(pieces)}x{pieces[0]}'
    return pieces[0]


def show(name, f, *args, **kw):
    c = jax.jit(f, **kw).lower(*args).compile()
    entry = c.as_text().split('\nENTRY')[1]
    defs = {}
    for line in entry.splitlines():
        m = re.match(r'\s*(?:ROOT )?%(\S+) = (\(.*?\)|\S+) ', line)
        if m:
            defs[m.group(1)] = m.group(2)
    print('==', name, '->', [s.spec for s in c.output_shardings] if isinstance(c.output_shardings, (list, tuple))
          else c.output_shardings.spec)
    for line in entry.splitlines():
        m = re.match(r'\s*(?:ROOT )?%(\S+) = (\(.*?\)|\S+) (' + '|'.join(COLL) + r')\(([^)]*)\)', line)
        if m:
            ops = [o.strip().lstrip('%') for o in m.group(4).split(',')]
            operand = f'{len(ops)}x' + shape_of(defs, ops[0]) if len(ops) > 1 else shape_of(defs, ops[0])
            dims = re.search(r'dimensions=\{(\d+)\}', line)
            print('  ', m.group(3), operand, '->', shape_of(defs, m.group(1)),
                  ('dim ' + dims.group(1) + ' ') if dims else '', groups(line))


devices = np.array(jax.devices())
m42 = Mesh(devices.reshape(4, 2), ('x', 'y'))
ab = Mesh(devices.reshape(4, 2), ('a', 'b'))
XY = Mesh(devices.reshape(4, 2), ('X', 'Y'))
m22 = Mesh(devices[:4].reshape(2, 2), ('x', 'y'))
XY22 = Mesh(devices[:4].reshape(2, 2), ('X', 'Y'))


def put(mesh, shape, *spec, dtype=jnp.float32):
    return jax.device_put(jnp.arange(int(np.prod(shape)), dtype=dtype).reshape(shape), NS(mesh, P(*spec)))


# the rows
x = put(m42, (16, 4), 'x', 'y')
show('mean P(x,y) f32[16,4]', lambda a: a.mean(), x)
show('sum axes (1,0) P(x,y) f32[16,4]', lambda a: a.sum(axis=(1, 0)), x)
show('max P(x,None,y) f32[8,4,2]', lambda a: a.max(), put(m42, (8, 4, 2), 'x', None, 'y'))
show('sum P((x,y),None) f32[64,8]', lambda a: a.sum(), put(m42, (64, 8), ('x', 'y'), None))
c16 = put(m42, (16, 16), 'x', 'y')
show('concatenate dim 0 P(x,y) f32[16,16]', lambda a, b: jnp.concatenate([a, b], 0), c16, c16)
c84 = put(m42, (8, 4), 'x', 'y')
show('concatenate dim 1 P(x,y) f32[8,4]', lambda a, b: jnp.concatenate([a, b], 1), c84, c84)
show('concatenate dim 0 P(x,y) f32[8,4]', lambda a, b: jnp.concatenate([a, b], 0), c84, c84)
show('concatenate dim 2 P(None,None,x) f32[8,2,8]', lambda a, b: jnp.concatenate([a, b], 2),
     put(m42, (8, 2, 8), None, None, 'x'), put(m42, (8, 2, 8), None, None, 'x'))

# Problem 2.2: the dense MoE, E = 8, S = 64, D = 32, F = 48 on X = 4, Y = 2
E, S, D, F = 8, 64, 32, 48


def moe(a, w, b):
    onehot = jax.nn.one_hot(b, E, dtype=jnp.float32)
    buf = jnp.einsum('se,sd->esd', onehot, a)
    return jnp.einsum('se,esf->sf', onehot, jnp.einsum('esd,edf->esf', buf, w))


show('Problem 2.2 moe', moe, put(XY, (S, D), 'X', 'Y'), put(XY, (E, D, F), 'X', None, 'Y'),
     jax.device_put(jnp.arange(S, dtype=jnp.int32) * 5 % E, NS(XY, P('X'))), out_shardings=NS(XY, P('X', 'Y')))

# jax-auto.md section 3
show('sin P(a,b) f32[8,8]', jnp.sin, put(ab, (8, 8), 'a', 'b'))
show('dot P(a,None) . P(None,b) f32[8,8]', jnp.dot, put(ab, (8, 8), 'a', None), put(ab, (8, 8), None, 'b'))
show('copy P(a,b)', jnp.copy, put(ab, (8, 8), 'a', 'b'))
w64 = put(m42, (64, 64), 'x', 'y')
show('x + 1 constrained to P(y,x) f32[64,64]',
     lambda a: jax.lax.with_sharding_constraint(a + 1, NS(m42, P('y', 'x'))), w64)
show('x + 1 constrained to P() f32[64,64]', lambda a: jax.lax.with_sharding_constraint(a + 1, NS(m42, P())), w64)
In = put(XY22, (8, 256), 'X', 'Y')
Wt = put(XY22, (256, 512), 'Y', None)
show('einsum bd,df->bf out P(X,None) 2x2', lambda i, w: jnp.einsum('bd,df->bf', jnp.square(i), w), In, Wt,
     out_shardings=NS(XY22, P('X', None)))
show('einsum bd,df->bf no out 2x2', lambda i, w: jnp.einsum('bd,df->bf', jnp.square(i), w), In, Wt)
A44 = lambda *s: put(m22, (4, 4), *s)
show('matmul case 1 2x2', jnp.matmul, A44('x', None), A44(None, 'y'))
show('matmul case 2 2x2', jnp.matmul, A44(None, 'x'), A44())
show('matmul case 3 2x2', jnp.matmul, A44(None, 'x'), A44('x', None))
xi = put(XY, (512, 8), 'X', 'Y', dtype=jnp.int32)
show('Problem 1 average', lambda v: v.reshape(4, 128, 2, 4).mean(axis=(1, 3)), xi, out_shardings=NS(XY, P('X', 'Y')))
show('Problem 1 shift_jit', lambda v: jnp.roll(v.reshape(4, 128, 8), 5, axis=1).reshape(512, 8) - v, xi,
     out_shardings=NS(XY, P('X', 'Y')))
show('roll 5 axis 0', lambda v: jnp.roll(v, 5, axis=0), xi)

# docs/problem-2.md: with S = 32 XLA keeps the experts in place — it gathers the buffer over Y first, then moves
# it to the experts with an all-to-all and brings the results back with another
S = 32
show('Problem 2.2 moe, S = 32', moe, put(XY, (S, D), 'X', 'Y'), put(XY, (E, D, F), 'X', None, 'Y'),
     jax.device_put(jnp.arange(S, dtype=jnp.int32) * 5 % E, NS(XY, P('X'))), out_shardings=NS(XY, P('X', 'Y')))

# re-layouts: axes that leave the layout are all-gathered before the all-to-alls
x3 = put(XY, (8, 64, 32), 'X', None, 'Y')
show('reshard (8, 64, 32) (X, None, Y) -> (None, X, None)',
     lambda v: jax.lax.with_sharding_constraint(v, NS(XY, P(None, 'X', None))), x3)
x3 = put(XY, (8, 64, 32), None, 'X', 'Y')
show('reshard (8, 64, 32) (None, X, Y) -> (X, None, None)',
     lambda v: jax.lax.with_sharding_constraint(v, NS(XY, P('X', None, None))), x3)
show('reshard (8, 64, 32) (None, X, Y) -> (X, None, Y)',
     lambda v: jax.lax.with_sharding_constraint(v, NS(XY, P('X', None, 'Y'))), x3)
show('reshard (64, 32) (X, Y) -> (None, X)',
     lambda v: jax.lax.with_sharding_constraint(v, NS(XY, P(None, 'X'))), put(XY, (64, 32), 'X', 'Y'))
