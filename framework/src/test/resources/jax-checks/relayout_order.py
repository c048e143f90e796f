# The re-layouts RelayoutOrderTest pins: an f32[8,8] array laid out P('x', 'y') on a 4x2 mesh (Auto axes), jitted
# with another out sharding, and the collectives XLA:CPU compiles for the move (JAX 0.10.2). Run with
#   XLA_FLAGS=--xla_force_host_platform_device_count=8 /work/jaxvenv/bin/python relayout_order.py
import jax, jax.numpy as jnp, numpy as np
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P

d = jax.devices()
m = Mesh(np.array(d).reshape(4, 2), ('x', 'y'))
x = jax.device_put(jnp.arange(64.).reshape(8, 8), NamedSharding(m, P('x', 'y')))
for out in [P(None, 'x'), P('y', None)]:
    text = jax.jit(lambda a: a * 1, out_shardings=NamedSharding(m, out)).lower(x).compile().as_text()
    print(out)
    for line in text.splitlines():
        if any(k in line for k in ('all-gather(', 'all-to-all(', 'collective-permute(')):
            print('  ', line.strip()[:220])
