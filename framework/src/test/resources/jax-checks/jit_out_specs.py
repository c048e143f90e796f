# How JAX 0.10.2 spells the sharding of a jit result whose layout the compiler chose (no out_shardings), pinned by
# framework/src/test/java/dev/shardlings/jit/JitOutSpecsTest.java.
# Run: XLA_FLAGS=--xla_force_host_platform_device_count=8 /work/jaxvenv/bin/python jit_out_specs.py
# Auto axes: the first argument of the same rank laid out alike lends its sharding as given (trailing Nones kept);
# otherwise trailing Nones are dropped. Explicit axes: the type's spec, one entry per dimension.
import jax, jax.numpy as jnp
from jax.sharding import AxisType, NamedSharding, PartitionSpec as P
m = jax.make_mesh((2,2), ('x','y'), axis_types=(AxisType.Auto,)*2, devices=jax.devices()[:4])
def put(shape, spec): return jax.device_put(jnp.ones(shape, jnp.float32), NamedSharding(m, spec))
def show(name, f, *args): print(name, '->', jax.jit(f)(*args).sharding.spec)
show('sin P(x,None)', jnp.sin, put((4,4), P('x', None)))
show('sin P(x)', jnp.sin, put((4,4), P('x')))
show('sin P(None,None)', jnp.sin, put((4,4), P(None, None)))
show('sum0 of P(None,None) (replicated out)', lambda a: a.sum(0), put((4,4), P(None, None)))
show('sum0 of P(None,y)', lambda a: a.sum(0), put((4,4), P(None, 'y')))
show('add P(x) + P(x,None)', lambda a, b: a + b, put((4,4), P('x')), put((4,4), P('x', None)))
show('add P(x,None) + P(x)', lambda a, b: a + b, put((4,4), P('x', None)), put((4,4), P('x')))
show('transpose P(None,x) -> (x,None)', lambda a: a.T, put((4,4), P(None, 'x')))
show('matmul P(x,None) P(None,None)', lambda a, b: a @ b, put((4,4), P('x', None)), put((4,4), P(None, None)))
show('matmul P(x,None) P(x,None)-> rank1 b', lambda a, b: a @ b, put((4,4), P('x', None)), put((4,), P(None)))
show('reshape [4,4]P(x,None)->[16]', lambda a: a.reshape(16), put((4,4), P('x', None)))
show('scalar', lambda a: a.sum(), put((4,4), P('x', None)))
show('scalar with repl in P(None,)', lambda a, b: a.sum() + b.sum(), put((4,4), P('x', None)), put((4,), P(None)))
m21 = jax.make_mesh((2,1), ('x','y'), axis_types=(AxisType.Auto,)*2, devices=jax.devices()[:2])
a = jax.device_put(jnp.ones((4,4)), NamedSharding(m21, P('x', 'y')))
print('2x1 sin P(x,y) ->', jax.jit(jnp.sin)(a).sharding.spec)
b = jax.device_put(jnp.ones((4,4)), NamedSharding(m21, P('x', None)))
print('2x1 a+b P(x,None), P(x,y) ->', jax.jit(lambda p, q: p + q)(b, a).sharding.spec)
print('2x1 mm P(x,None), P(None,y) ->', jax.jit(lambda p, q: p @ q)(b, jax.device_put(jnp.ones((4,4)), NamedSharding(m21, P(None, 'y')))).sharding.spec)
f = jax.jit(jnp.sin)
print('cache: P(x) then P(x, None) ->', f(put((4,4), P('x'))).sharding.spec, f(put((4,4), P('x', None))).sharding.spec)
print('int32 argument lends it', jax.jit(lambda a, b: a.astype(jnp.float32) + b)(
    jax.device_put(jnp.ones((4,4), jnp.int32), NamedSharding(m, P('x', None))), put((4,4), P('x'))).sharding.spec)
print('out_shardings as given', jax.jit(jnp.sin, out_shardings=NamedSharding(m, P('x')))(put((4,4), P('x', None))).sharding.spec)
me = jax.make_mesh((2,2), ('x','y'), axis_types=(AxisType.Explicit,)*2, devices=jax.devices()[:4])
def putE(shape, spec): return jax.device_put(jnp.ones(shape, jnp.float32), NamedSharding(me, spec))
print('Explicit sin P(x)', jax.jit(jnp.sin)(putE((4,4), P('x'))).sharding.spec)
print('Explicit sum0 P(x,y)', jax.jit(lambda a: a.sum(0))(putE((4,4), P('x', 'y'))).sharding.spec)
print('Explicit T P(x,None)', jax.jit(lambda a: a.T)(putE((4,4), P('x', None))).sharding.spec)
# only the first committed argument is compared (maybe_recover_user_shardings returns on the first one)
print('second argument lends nothing', jax.jit(lambda p, q: q @ p)(put((4,4), P(None, None)), put((4,4), P('x', None))).sharding.spec)
print('replicated P()', jax.jit(jnp.sin)(put((4,4), P())).sharding.spec)
# Explicit axes (jax.make_mesh's default): replicated results print one None per dimension too
m8 = jax.make_mesh((8,), ('batch',), devices=jax.devices()[:8])
x = jax.device_put(jnp.ones((16, 4)), NamedSharding(m8, P('batch')))
w = jax.device_put(jnp.ones((4, 3)), NamedSharding(m8, P()))
g = jax.jit(lambda xx, ww: jax.grad(lambda w_, x_: jnp.sum(jnp.square(x_ @ w_)))(ww, xx))
print('Explicit grad of a P() weight (AutodiffSmokeTest)', g(x, w).sharding.spec)
print('Explicit sum0 P(batch)', jax.jit(lambda a: a.sum(0))(x).sharding.spec)
