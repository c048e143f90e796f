# Tour02ShardedMatrices' last section: seed 001's P(('a', 'b'), None) on a 4 x 2 mesh, as JAX 0.10.2 places it.
# Run: XLA_FLAGS=--xla_force_host_platform_device_count=8 /work/jaxvenv/bin/python tour02_p_ab_none.py
import jax
from jax.sharding import NamedSharding, PartitionSpec as P
x = jax.random.normal(jax.random.key(0), (8192, 8192))
mesh = jax.make_mesh((4, 2), ('a', 'b'))
s = NamedSharding(mesh, P(('a', 'b'), None))
y = jax.device_put(x, s)
print(s.spec, s.shard_shape(y.shape))
for shard in y.addressable_shards:
    print(shard.device, shard.index, shard.data.shape)
small = jax.device_put(jax.numpy.arange(16).reshape(8, 2), s)
for shard in small.addressable_shards:
    print(shard.device, shard.index, shard.data)
