# Seed 001's "When explicit shardings disagree, JAX errors", eager and under jit, and the variants
# IncompatibleDevicesTest pins (JAX 0.10.2 on 8 simulated CPU devices). Run with
#   XLA_FLAGS=--xla_force_host_platform_device_count=8 /work/jaxvenv/bin/python incompatible_devices.py
import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import AxisType, Mesh, NamedSharding, PartitionSpec as P

d = jax.devices()
x = jnp.arange(24)
f = jnp.arange(24.).reshape(8, 3)
g = jnp.arange(24.).reshape(3, 8)
lo = Mesh(np.array(d[:4]), ('x',))                     # Auto axes, as Mesh(devices, names) makes them
hi = Mesh(np.array(d[4:]), ('x',))
full = Mesh(np.array(d), ('x',))
permuted = Mesh(np.array([d[i] for i in [0, 1, 2, 3, 6, 7, 4, 5]]), ('x',))
E = (AxisType.Explicit,)
lo_e = Mesh(np.array(d[:4]), ('x',), axis_types=E)
hi_e = Mesh(np.array(d[4:]), ('x',), axis_types=E)


def put(v, mesh, spec=P('x')):
    return jax.device_put(v, NamedSharding(mesh, spec))


def show(label, fn):
    try:
        print(label, 'OK', fn().sharding)
    except Exception as e:
        print(label, type(e).__name__ + ':', e)


def f_add(a, b):
    return a + b


show('seed disjoint', lambda: put(x, lo) + put(x, hi))
show('seed permuted', lambda: put(x, full) + put(x, permuted))
show('reversed', lambda: put(x, hi) + put(x, lo))
show('explicit', lambda: put(x, lo_e) + put(x, hi_e))
show('subtract', lambda: put(x, lo) - put(x, hi))
show('true_divide', lambda: put(x, lo) / put(x, hi))
show('greater', lambda: put(x, lo) > put(x, hi))
show('where', lambda: jnp.where(put(x, lo) > 3, put(x, hi), put(x, lo)))
show('where scalar x', lambda: jnp.where(put(x, lo) > 3, 0, put(x, hi)))
show('matmul', lambda: jnp.matmul(put(f, lo), put(g, hi, P(None, 'x'))))
show('einsum', lambda: jnp.einsum('ij,jk->ik', put(f, lo), put(g, hi, P(None, 'x'))))
show('dot_general', lambda: jax.lax.dot_general(put(f, lo), put(g, hi, P(None, 'x')), (((1,), (0,)), ((), ()))))
show('concatenate', lambda: jnp.concatenate([put(x, lo), put(x, lo), put(x, hi)]))
show('broadcast', lambda: put(x, lo) + put(jnp.arange(48).reshape(2, 24), hi, P()))
show('uncommitted', lambda: put(x, hi) + jnp.ones(24, dtype=jnp.int32))
show('jit disjoint', lambda: jax.jit(f_add)(put(x, lo), put(x, hi)))
show('jit permuted', lambda: jax.jit(f_add)(put(x, full), put(x, permuted)))
# the same devices in the same order under other axis names: the devices agree, the meshes do not
show('explicit other names', lambda: put(x, Mesh(np.array(d), ('x',), axis_types=E))
     + put(x, Mesh(np.array(d), ('a',), axis_types=E), P('a')))
show('auto other shape', lambda: put(x, full) + put(x, Mesh(np.array(d).reshape(4, 2), ('x', 'y'))))
# jit compares device assignments (the flat device order), not meshes: the same 8 devices as an 8-mesh and a 4x2
# mesh compile on Auto axes (the result on the first argument's mesh), are JAX's mesh error on Explicit axes when
# an operation combines them, and pass through untouched when none does; another flat order is incompatible
grid = Mesh(np.array(d).reshape(4, 2), ('x', 'y'))
grid_t = Mesh(np.array(d).reshape(2, 4).T, ('x', 'y'))
full_e = Mesh(np.array(d), ('x',), axis_types=E)
grid_e = Mesh(np.array(d).reshape(4, 2), ('x', 'y'), axis_types=(AxisType.Explicit,) * 2)
show('eager auto 8 vs 4x2', lambda: put(x, full) + put(x, grid))
show('eager auto 4x2 vs 8', lambda: put(x, grid) + put(x, full))
show('jit auto 8 vs 4x2', lambda: jax.jit(f_add)(put(x, full), put(x, grid)))
show('jit auto 4x2 vs 8', lambda: jax.jit(f_add)(put(x, grid), put(x, full)))
show('jit auto 8 vs transposed 4x2', lambda: jax.jit(f_add)(put(x, full), put(x, grid_t)))
show('jit explicit 8 vs 4x2', lambda: jax.jit(f_add)(put(x, full_e), put(x, grid_e)))
show('jit explicit 8 vs auto 4x2', lambda: jax.jit(f_add)(put(x, full_e), put(x, grid)))
show('jit explicit disjoint', lambda: jax.jit(f_add)(put(x, lo_e), put(x, hi_e)))
pair = jax.jit(lambda a, b: (a, b))(put(x, full_e), put(x, grid_e))
print('jit explicit pass-through OK', pair[0].sharding, pair[1].sharding)
show('jit auto 8 vs 4x2 xy', lambda: jax.jit(f_add)(put(x, full), put(x, grid, P(('x', 'y')))))
