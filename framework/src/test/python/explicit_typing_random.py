"""Ground truth for the framework's Explicit-axes typing rules, from real JAX.

Generates random cases (meshes of 1-3 Explicit axes on up to 8 CPU devices, random specs and shapes) for each
primitive the framework types, runs each under jax.jit with the mesh set, and writes one JSON object per line:
the op, its inputs and parameters, and either str(jax.typeof(result)) or the exception's type and text.
The framework's ExplicitTypingConformanceTest replays every line.

Rerun (JAX 0.10.2, jaxlib 0.10.2):
  XLA_FLAGS=--xla_force_host_platform_device_count=8 JAX_PLATFORMS=cpu \
    python framework/src/test/python/explicit_typing_random.py \
    > framework/src/test/resources/dev/shardlings/primitive/explicit-typing-random.jsonl
"""
import itertools
import json
import random

import numpy as np
import jax
import jax.numpy as jnp
from jax.sharding import AxisType, NamedSharding, PartitionSpec as P

MESHES = [((8,), ('X',)), ((4, 2), ('X', 'Y')), ((2, 4), ('X', 'Y')), ((2, 2, 2), ('X', 'Y', 'Z')),
          ((2, 2), ('X', 'Y')), ((1, 4), ('X', 'Y'))]
rng = random.Random(20261124)


def make_mesh(sizes, names):
    return jax.make_mesh(sizes, names, axis_types=(AxisType.Explicit,) * len(names))


def spec_entry(e):
    if e is None:
        return []
    if isinstance(e, tuple):
        return list(e)
    return [e]


def to_p(entries):
    return P(*[None if not e else (e[0] if len(e) == 1 else tuple(e)) for e in entries])


def random_spec(rank, sizes, names, shape=None):
    free = list(names)
    rng.shuffle(free)
    out = []
    for d in range(rank):
        r = rng.random()
        if r < 0.45 or not free:
            out.append([])
        elif r < 0.9 or len(free) < 2:
            out.append([free.pop()])
        else:
            out.append([free.pop(), free.pop()])
    return out


def axis_prod(entry, sizes, names):
    p = 1
    for a in entry:
        p *= sizes[names.index(a)]
    return p


def fit_shape(spec, sizes, names, base=None):
    shape = []
    for d, e in enumerate(spec):
        p = axis_prod(e, sizes, names)
        mult = rng.choice([1, 1, 2, 4]) if base is None else None
        shape.append(p * mult if base is None else base[d])
    return shape


def divisible(shape, spec, sizes, names):
    return all(s % axis_prod(e, sizes, names) == 0 for s, e in zip(shape, spec))


def run(mesh, fn, inputs):
    arrays = []
    for inp in inputs:
        dt = np.int32 if inp['dtype'] == 'int32' else np.float32
        data = np.arange(int(np.prod(inp['shape'])) if inp['shape'] else 1).reshape(inp['shape']).astype(dt)
        arrays.append(jax.device_put(data, NamedSharding(mesh, to_p(inp['spec']))))
    try:
        with jax.set_mesh(mesh):
            out = jax.jit(fn)(*arrays)
        return str(jax.typeof(out)), None
    except Exception as e:  # noqa: BLE001 - we record every error
        return None, {'type': type(e).__name__, 'message': str(e)}


cases = []


def add(mesh_def, op, inputs, params, fn):
    sizes, names = mesh_def
    mesh = make_mesh(sizes, names)
    result, error = run(mesh, fn, inputs)
    cases.append({'id': len(cases), 'mesh': {'names': list(names), 'sizes': list(sizes)}, 'op': op,
                  'inputs': inputs, 'params': params, 'result': result, 'error': error})


def inp(shape, spec, dtype='float32'):
    return {'shape': list(shape), 'dtype': dtype, 'spec': spec}


for _ in range(40):
    m = rng.choice(MESHES)
    sizes, names = m
    rank = rng.choice([1, 2, 3])
    spec = random_spec(rank, sizes, names)
    shape = fit_shape(spec, sizes, names)
    op = rng.choice(['sin', 'add', 'add', 'add_scalar'])
    if op == 'sin':
        add(m, 'sin', [inp(shape, spec)], {}, jnp.sin)
    elif op == 'add_scalar':
        add(m, 'add_scalar', [inp(shape, spec)], {}, lambda a: a + 1.0)
    else:
        spec2 = random_spec(rank, sizes, names)
        shape2 = list(shape)
        for d in range(rank):
            if rng.random() < 0.2:
                shape2[d] = 1
                spec2[d] = []
        if not divisible(shape2, spec2, sizes, names):
            spec2 = [[] if s % axis_prod(e, sizes, names) else e for s, e in zip(shape2, spec2)]
        add(m, 'add', [inp(shape, spec), inp(shape2, spec2)], {}, lambda a, b: a + b)

for _ in range(70):
    m = rng.choice(MESHES)
    sizes, names = m
    batched = rng.random() < 0.3
    if batched:
        ls = random_spec(3, sizes, names)
        rs = random_spec(3, sizes, names)
        b = 4 * axis_prod(ls[0], sizes, names) * axis_prod(rs[0], sizes, names)
        i = 2 * axis_prod(ls[1], sizes, names)
        k = 4 * axis_prod(ls[2], sizes, names) * axis_prod(rs[1], sizes, names)
        j = 2 * axis_prod(rs[2], sizes, names)
        lshape, rshape = [b, i, k], [b, k, j]
        dims = {'lhs_contracting': [2], 'rhs_contracting': [1], 'lhs_batch': [0], 'rhs_batch': [0]}
    else:
        ls = random_spec(2, sizes, names)
        rs = random_spec(2, sizes, names)
        i = 2 * axis_prod(ls[0], sizes, names)
        k = 4 * axis_prod(ls[1], sizes, names) * axis_prod(rs[0], sizes, names)
        j = 2 * axis_prod(rs[1], sizes, names)
        lshape, rshape = [i, k], [k, j]
        dims = {'lhs_contracting': [1], 'rhs_contracting': [0], 'lhs_batch': [], 'rhs_batch': []}
    out_spec = None
    if rng.random() < 0.3:
        out_rank = 3 if batched else 2
        out_spec = random_spec(out_rank, sizes, names)
        out_shape = [b, i, j] if batched else [i, j]
        if not divisible(out_shape, out_spec, sizes, names):
            out_spec = [[] for _ in out_spec]
    params = dict(dims)
    params['out_sharding'] = out_spec
    mesh_obj = make_mesh(sizes, names)

    def dot(a, c, dims=dims, out_spec=out_spec, mesh_obj=mesh_obj):
        return jax.lax.dot_general(a, c, ((tuple(dims['lhs_contracting']), tuple(dims['rhs_contracting'])),
                                          (tuple(dims['lhs_batch']), tuple(dims['rhs_batch']))),
                                   out_sharding=None if out_spec is None else NamedSharding(mesh_obj, to_p(out_spec)))
    add(m, 'dot_general', [inp(lshape, ls), inp(rshape, rs)], params, dot)

for _ in range(40):
    m = rng.choice(MESHES)
    sizes, names = m
    rank = rng.choice([1, 2, 3])
    spec = random_spec(rank, sizes, names)
    shape = fit_shape(spec, sizes, names)
    axes = sorted(rng.sample(range(rank), rng.randint(1, rank)))
    op = rng.choice(['reduce_sum', 'reduce_max'])
    f = (lambda a, axes=axes: jnp.sum(a, axis=tuple(axes))) if op == 'reduce_sum' else \
        (lambda a, axes=axes: jnp.max(a, axis=tuple(axes)))
    add(m, op, [inp(shape, spec)], {'axes': axes}, f)

for _ in range(25):
    m = rng.choice(MESHES)
    sizes, names = m
    rank = rng.choice([2, 3])
    spec = random_spec(rank, sizes, names)
    shape = fit_shape(spec, sizes, names)
    perm = list(range(rank))
    rng.shuffle(perm)
    add(m, 'transpose', [inp(shape, spec)], {'permutation': perm}, lambda a, perm=perm: jnp.transpose(a, perm))

for _ in range(90):
    m = rng.choice(MESHES)
    sizes, names = m
    rank = rng.choice([1, 2, 3])
    spec = random_spec(rank, sizes, names)
    shape = fit_shape(spec, sizes, names)
    n = int(np.prod(shape))
    kind = rng.choice(['split', 'merge', 'ones', 'any'])
    if kind == 'split':
        d = rng.randrange(rank)
        s = shape[d]
        fs = [f for f in range(1, s + 1) if s % f == 0]
        f = rng.choice(fs)
        new = shape[:d] + [f, s // f] + shape[d + 1:]
    elif kind == 'merge' and rank >= 2:
        d = rng.randrange(rank - 1)
        new = shape[:d] + [shape[d] * shape[d + 1]] + shape[d + 2:]
    elif kind == 'ones':
        new = list(shape)
        new.insert(rng.randrange(rank + 1), 1)
    else:
        facs = [f for f in range(1, n + 1) if n % f == 0]
        a = rng.choice(facs)
        rest = n // a
        fb = [f for f in range(1, rest + 1) if rest % f == 0]
        bb = rng.choice(fb)
        new = [a, bb, rest // bb] if rng.random() < 0.5 else [a, rest]
    out_spec = None
    if rng.random() < 0.15:
        out_spec = [[] for _ in new]
    mesh_obj = make_mesh(sizes, names)
    add(m, 'reshape', [inp(shape, spec)], {'new_sizes': new, 'out_sharding': out_spec},
        lambda a, new=new, out_spec=out_spec, mesh_obj=mesh_obj: jax.lax.reshape(
            a, tuple(new), out_sharding=None if out_spec is None else NamedSharding(mesh_obj, to_p(out_spec))))

for _ in range(20):
    m = rng.choice(MESHES)
    sizes, names = m
    rank = rng.choice([1, 2])
    spec = random_spec(rank, sizes, names)
    shape = fit_shape(spec, sizes, names)
    spec2 = spec if rng.random() < 0.6 else random_spec(rank, sizes, names)
    if not divisible(shape, spec2, sizes, names):
        spec2 = spec
    d = rng.randrange(rank)
    add(m, 'concatenate', [inp(shape, spec), inp(shape, spec2)], {'dimension': d},
        lambda a, c, d=d: jnp.concatenate([a, c], axis=d))

for _ in range(25):
    m = rng.choice(MESHES)
    sizes, names = m
    rank = rng.choice([1, 2])
    spec = random_spec(rank, sizes, names)
    shape = fit_shape(spec, sizes, names)
    start, limit = [], []
    for s in shape:
        a = rng.randrange(s)
        b = rng.randrange(a + 1, s + 1)
        if rng.random() < 0.4:
            a, b = 0, s
        start.append(a)
        limit.append(b)
    add(m, 'slice', [inp(shape, spec)], {'start_indices': start, 'limit_indices': limit},
        lambda x, start=start, limit=limit: jax.lax.slice(x, tuple(start), tuple(limit)))

for _ in range(20):
    m = rng.choice(MESHES)
    sizes, names = m
    rank = rng.choice([1, 2])
    spec = random_spec(rank, sizes, names)
    shape = fit_shape(spec, sizes, names)
    new_rank = rank + 1
    bdims = sorted(rng.sample(range(new_rank), rank))
    out_shape = [3] * new_rank
    for k, d in enumerate(bdims):
        out_shape[d] = shape[k]
    add(m, 'broadcast_in_dim', [inp(shape, spec)], {'shape': out_shape, 'broadcast_dimensions': bdims},
        lambda x, out_shape=out_shape, bdims=bdims: jax.lax.broadcast_in_dim(x, tuple(out_shape), tuple(bdims)))

for _ in range(20):
    m = rng.choice(MESHES)
    sizes, names = m
    rank = rng.choice([1, 2])
    spec = random_spec(rank, sizes, names)
    shape = fit_shape(spec, sizes, names)
    target = random_spec(rank, sizes, names)
    if not divisible(shape, target, sizes, names):
        target = [[] for _ in target]
    mesh_obj = make_mesh(sizes, names)
    if rng.random() < 0.5:
        add(m, 'reshard', [inp(shape, spec)], {'spec': target},
            lambda x, target=target: jax.sharding.reshard(x, to_p(target)))
    else:
        add(m, 'with_sharding_constraint', [inp(shape, spec)], {'spec': target},
            lambda x, target=target, mesh_obj=mesh_obj: jax.lax.with_sharding_constraint(
                x, NamedSharding(mesh_obj, to_p(target))))

for c in cases:
    print(json.dumps(c, separators=(',', ':')))
