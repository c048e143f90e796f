# The texts and shardings MeshContextTest and InShardingsTest pin: jax.set_mesh, creation with out_sharding,
# device_put with a bare spec, and jax.jit's in_shardings (JAX 0.10.2).
# Run: XLA_FLAGS=--xla_force_host_platform_device_count=8 /work/jaxvenv/bin/python seed_api.py
# (JAX's reprs of NamedSharding and Mesh also print axis_types and memory_kind; the framework's do not.)
import jax, jax.numpy as jnp, numpy as np
from jax.sharding import NamedSharding, PartitionSpec as P, AxisType


def tryit(label, f):
    try:
        print(label, "->", f())
    except Exception as e:
        print(label, "RAISES", type(e).__name__, ":", str(e).split("\n--------")[0].split(" This error occurs")[0])


explicit = jax.make_mesh((2, 2), ('X', 'Y'))
auto = jax.make_mesh((2, 2), ('X', 'Y'), axis_types=(AxisType.Auto,) * 2)
mixed = jax.make_mesh((2, 2), ('X', 'Y'), axis_types=(AxisType.Explicit, AxisType.Auto))
other = jax.make_mesh((4, 2), ('x', 'y'))
x = np.arange(16.0, dtype=np.float32).reshape(4, 4)

print("== set_mesh and creation")
tryit("zeros P, no mesh", lambda: jnp.zeros((8, 4), out_sharding=P('X', 'Y')))
tryit("device_put P, no mesh", lambda: jax.device_put(x, P('X')))
with jax.set_mesh(explicit):
    In = jnp.zeros((8, 2048), dtype=jnp.bfloat16, out_sharding=P('X', 'Y'))
    W = jnp.zeros((2048, 8192), dtype=jnp.bfloat16, out_sharding=P('Y', None))
    print("In", In.sharding.spec, jax.typeof(In), "W", W.sharding.spec, jax.typeof(W))
    tryit("full P", lambda: (jnp.full((4, 4), 2.5, out_sharding=P(None, 'Y')).sharding.spec,
                             jax.typeof(jnp.full((4, 4), 2.5, out_sharding=P(None, 'Y')))))
    tryit("zeros unknown axis", lambda: jnp.zeros((8, 4), out_sharding=P('Z')))
    with jax.set_mesh(other):
        tryit("nested: inner wins", lambda: jax.sharding.get_abstract_mesh())
    tryit("after nested: outer again", lambda: jax.sharding.get_abstract_mesh())
    tryit("set_mesh in jit", lambda: jax.jit(lambda a: (jax.set_mesh(explicit), a)[1])(x))
tryit("after with: none", lambda: jax.sharding.get_abstract_mesh())
with jax.set_mesh(mixed):
    tryit("full on an Auto axis", lambda: jnp.full((4, 4), 1.0, out_sharding=P('X', 'Y')))
    tryit("zeros on an Auto axis", lambda: jnp.zeros((4, 4), out_sharding=P(('X', 'Y'))))
with jax.set_mesh(auto):
    tryit("device_put P on Auto", lambda: jax.device_put(x, P('X')).sharding.spec)

print("== jit in_shardings")
add = lambda a, b: a + b
tryit("P, no mesh", lambda: jax.jit(add, in_shardings=(P('X', None), P(None, 'Y')))(x, x))
with jax.set_mesh(auto):
    f = jax.jit(add, in_shardings=(P('X', None), P(None, 'Y')))
    tryit("uncommitted args placed", lambda: f(x, x).sharding.spec)
    tryit("count 1 for 2", lambda: jax.jit(add, in_shardings=(P('X', None),))(x, x))
    tryit("count 3 for 2", lambda: jax.jit(add, in_shardings=(P('X'), P(), P()))(x, x))
    tryit("committed other spec", lambda: f(jax.device_put(x, P('Y', None)), x))
    tryit("committed equivalent spec", lambda: f(jax.device_put(x, P('X')), x).sharding.spec)
    tryit("rank", lambda: jax.jit(lambda a: a * 2, in_shardings=(P('X', None, None),))(x))
    tryit("indivisible", lambda: jax.jit(lambda a: a * 2, in_shardings=(P('X'),))(np.arange(3.0, dtype=np.float32)))
with jax.set_mesh(explicit):
    tryit("committed other spec, Explicit", lambda: jax.jit(lambda a: a * 2, in_shardings=(P('X'),))(
        jax.device_put(x, P('Y', None))))
tryit("NamedSharding, no mesh", lambda: jax.jit(lambda a: a * 2, in_shardings=(NamedSharding(auto, P('X')),))(x)
      .sharding.spec)
tryit("NamedSharding, arg on another mesh", lambda: jax.jit(lambda a: a * 2, in_shardings=(
    NamedSharding(auto, P('X')),))(jax.device_put(x, NamedSharding(other, P('y', None)))))

print("== creation with a NamedSharding out_sharding (no mesh in context)")
tryit("zeros NamedSharding Explicit", lambda: jax.typeof(jnp.zeros((8, 4), out_sharding=NamedSharding(explicit, P('X')))))
tryit("zeros NamedSharding Auto", lambda: jnp.zeros((8, 4), out_sharding=NamedSharding(auto, P('X'))))
tryit("full NamedSharding mixed", lambda: jnp.full((4, 4), 1.0, out_sharding=NamedSharding(mixed, P('X', 'Y'))))
tryit("zeros NamedSharding Auto P()", lambda: jnp.zeros((8, 4), out_sharding=NamedSharding(auto, P())).sharding.spec)
tryit("full NamedSharding Explicit bf16", lambda: jnp.full((8, 4), 1, jnp.bfloat16, out_sharding=NamedSharding(explicit, P(None, 'X'))))
tryit("zeros NamedSharding 1-device mesh", lambda: jax.typeof(jnp.zeros(8, out_sharding=NamedSharding(jax.make_mesh((1,), ('x',)), P('x')))))
with jax.set_mesh(explicit):
    tryit("zeros NamedSharding Explicit, mesh in context", lambda: jax.typeof(jnp.zeros((8, 4), out_sharding=NamedSharding(explicit, P('X')))))
with jax.set_mesh(auto):
    tryit("full NamedSharding Explicit, Auto mesh in context", lambda: jnp.full((8, 4), 1.0, out_sharding=NamedSharding(explicit, P('X'))))
tryit("zeros device= Auto", lambda: jnp.zeros((8, 4), device=NamedSharding(auto, P('X'))).sharding.spec)

print("== jit in_shardings: one sharding for every argument")
tryit("one NamedSharding", lambda: jax.jit(add, in_shardings=NamedSharding(auto, P('X')))(x, x).sharding.spec)
tryit("one NamedSharding, rank", lambda: jax.jit(add, in_shardings=NamedSharding(auto, P('X', 'Y', None)))(x, x))
with jax.set_mesh(auto):
    tryit("one P", lambda: jax.jit(add, in_shardings=P(None, 'Y'))(x, x).sharding.spec)
tryit("one P, no mesh", lambda: jax.jit(add, in_shardings=P('X'))(x, x))
