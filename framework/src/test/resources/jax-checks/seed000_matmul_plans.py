# XLA's per-device programs for seed 000's four sharded-matmul cases (and the table rows of issue 32) under jax.jit,
# pinned by framework/src/test/java/dev/shardlings/jit/XlaMatmulPlansTest.java.
# Run: XLA_FLAGS=--xla_force_host_platform_device_count=16 /work/jaxvenv/bin/python seed000_matmul_plans.py
# (JAX 0.10.2, CPU). Prints, per program, the output sharding and every collective of the compiled module.
import jax
import jax.numpy as jnp
from jax.sharding import AxisType, NamedSharding, PartitionSpec as P

KINDS = ('all-reduce(', 'all-gather(', 'collective-permute(', 'all-to-all(', 'reduce-scatter(')


def show(name, mesh, sa, sb, a_shape, b_shape, out=None):
    f = jax.jit(lambda p, q: p @ q, out_shardings=None if out is None else NamedSharding(mesh, out))
    a = jax.device_put(jnp.arange(a_shape[0] * a_shape[1], dtype=jnp.float32).reshape(a_shape),
                       NamedSharding(mesh, sa))
    b = jax.device_put(jnp.arange(b_shape[0] * b_shape[1], dtype=jnp.float32).reshape(b_shape),
                       NamedSharding(mesh, sb))
    text = f.lower(a, b).compile().as_text()
    print('=====', name, a_shape, sa, b_shape, sb, 'out', out, '->', f(a, b).sharding.spec)
    for line in text.splitlines():
        if any(k in line for k in KINDS) and 'ENTRY' not in line:
            print('   ', line.strip().split(', metadata')[0])


auto = (AxisType.Auto,) * 2
m22 = jax.make_mesh((2, 2), ('x', 'y'), axis_types=auto)
m4 = jax.make_mesh((4,), ('x',), axis_types=(AxisType.Auto,))
show('case 1', m22, P('x', None), P(None, 'y'), (4, 4), (4, 4))
show('case 2', m22, P(None, 'x'), P(), (4, 4), (4, 4))
show('case 3', m22, P(None, 'x'), P('x', None), (4, 4), (4, 4))
show('case 3, out P(x, None)', m22, P(None, 'x'), P('x', None), (4, 4), (4, 4), P('x', None))
# the same on other meshes (Problem 5.2's setting): the idle devices compute shares of the rows when their number is
# a multiple of x's size; otherwise the whole product is all-reduced and sliced
for shape, a_shape, b_shape in [((2, 4), (4, 8), (8, 8)), ((2, 6), (4, 12), (12, 6)), ((4, 2), (8, 8), (8, 4)),
                                ((4, 1), (8, 4), (4, 2))]:
    mesh = jax.make_mesh(shape, ('x', 'y'), axis_types=auto, devices=jax.devices()[:shape[0] * shape[1]])
    show('case 3, out P(x, None), %d x %d' % shape, mesh, P(None, 'x'), P('x', None), a_shape, b_shape, P('x', None))
show('case 3, out P(None, x)', m22, P(None, 'x'), P('x', None), (4, 4), (4, 4), P(None, 'x'))
show('case 3, out P(x, y): no idle device', m22, P(None, 'x'), P('x', None), (4, 4), (4, 4), P('x', 'y'))
m222 = jax.make_mesh((2, 2, 2), ('x', 'y', 'z'), axis_types=(AxisType.Auto,) * 3)
show('case 3 over z, out P(z, None), 2 x 2 x 2', m222, P(None, 'z'), P('z', None), (8, 8), (8, 8), P('z', None))
show('case 4', m22, P('x', None), P(None, 'x'), (4, 4), (4, 4))
show('case 4, B larger', m22, P('x', None), P(None, 'x'), (8, 4), (4, 16))
show('table row 2a', m22, P(None, 'x'), P(None, 'x'), (4, 4), (4, 4))
show('table row 2b', m22, P('x', None), P('x', None), (4, 4), (4, 4))
# J split on one operand only: XLA slices the other and all-reduces when the split operand has more elements than
# the result, and gathers otherwise (chapter 5's rule table)
show('one-sided, (4,64,64)', m4, P(None, 'x'), P(), (4, 64), (64, 64))
show('one-sided, (64,64,4)', m4, P(None, 'x'), P(), (64, 64), (64, 4))
show('one-sided, (8,80,64)', m4, P(None, 'x'), P(), (8, 80), (80, 64))
show('one-sided, replicated over y', m22, P(None, 'x'), P(), (4, 8), (8, 2))
show('both split, other axes', m22, P(None, 'x'), P('y', None), (4, 8), (8, 16))
show('both split, other axes, lhs larger', m22, P(None, 'x'), P('y', None), (16, 8), (8, 4))
m42 = jax.make_mesh((4, 2), ('X', 'Y'), axis_types=auto)
show('one-sided on 4 x 2 (GlobalOpsCommunicationTest)', m42, P(None, 'X'), P(), (8, 8), (8, 8))
show('one-sided on 4 x 2, tall (GlobalOpsCommunicationTest)', m42, P(None, 'X'), P(), (2, 64), (64, 2))
# Explicit axes, an eager-style matmul told its out sharding (GlobalOpsCommunicationTest): the same plans
for shape in [(2, 2), (4, 2)]:
    me = jax.make_mesh(shape, ('x', 'y'), axis_types=(AxisType.Explicit,) * 2, devices=jax.devices()[:shape[0] * shape[1]])
    a = jax.device_put(jnp.ones((8, 8), jnp.float32), NamedSharding(me, P(None, 'x')))
    b = jax.device_put(jnp.ones((8, 8), jnp.float32), NamedSharding(me, P('x', None)))
    f = jax.jit(lambda p, q: jnp.matmul(p, q, out_sharding=NamedSharding(me, P('x', None))))
    print('===== explicit %d x %d, out_sharding P(x, None)' % shape, '->', f(a, b).sharding.spec)
    for line in f.lower(a, b).compile().as_text().splitlines():
        if any(k in line for k in KINDS) and 'ENTRY' not in line:
            print('   ', line.strip().split(', metadata')[0])
