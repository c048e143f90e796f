# Part 7.5's choice of collectives, as JAX 0.10.2 differentiates them: through the all_gather of a bf16 copy the
# gradient comes back as a bf16 psum_scatter (the reduction in bf16), while the gradient taken with respect to the
# gathered copy, widened to f32, is reduce-scattered in f32. Quoted in docs/chapter-7.md, part 7.5.
# Run: XLA_FLAGS=--xla_force_host_platform_device_count=8 /work/jaxvenv/bin/python mixed_precision_collectives.py
import jax
import jax.numpy as jnp
from jax.sharding import PartitionSpec as P

mesh = jax.make_mesh((8,), ('data',), axis_types=(jax.sharding.AxisType.Auto,))
bf = jnp.bfloat16


def through_gather(w, x):
    def loss(w):
        wb = jax.lax.all_gather(w.astype(bf), 'data', tiled=True)
        return jnp.sum(jnp.matmul(x.astype(bf), wb, preferred_element_type=jnp.float32))
    return jax.grad(loss)(w)


def wrt_copy(w, x):
    wb = jax.lax.all_gather(w.astype(bf), 'data', tiled=True)
    g = jax.grad(lambda c: jnp.sum(jnp.matmul(x.astype(bf), c, preferred_element_type=jnp.float32)))(wb)
    return jax.lax.psum_scatter(g.astype(jnp.float32), 'data', tiled=True)


w = jnp.ones((16, 4), jnp.float32)
x = jnp.ones((16, 16), jnp.float32)
for f in (through_gather, wrt_copy):
    g = jax.shard_map(f, mesh=mesh, in_specs=(P('data'), P('data')), out_specs=P('data'))
    text = str(jax.make_jaxpr(g)(w, x))
    print(f.__name__, [line.strip() for line in text.splitlines() if 'psum_scatter' in line or 'all_gather' in line
                       or 'reduce_scatter' in line])
