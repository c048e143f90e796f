# Tour04MatmulCases' first two sections (seed 000's case 1 and 'why case 2 fails'), as JAX 0.10.2 prints them.
# rich is not installed in the venv, so shardings are printed instead of visualize_array_sharding's pictures.
# Run: XLA_FLAGS=--xla_force_host_platform_device_count=8 /work/jaxvenv/bin/python case12.py
import jax, jax.numpy as jnp
from jax.sharding import NamedSharding, PartitionSpec as P
mesh_2x2 = jax.make_mesh((2, 2), ('x', 'y'))
key = jax.random.PRNGKey(42)
A = jax.random.uniform(key, (4, 4))
B = jax.random.uniform(key, (4, 4)) + 1
print(A); print(B)
A_sharded = jax.device_put(A, NamedSharding(mesh_2x2, P('x', None)))
B_sharded = jax.device_put(B, NamedSharding(mesh_2x2, P(None, 'y')))
print(A_sharded.sharding)
print(B_sharded.sharding)
C = A_sharded @ B_sharded
print(C.sharding)
print(C.sharding)
print(f"\nCorrect result: {jnp.allclose(C, A @ B)}")
print(f"C shape: {C.shape}")
print(C)
print(jax.random.key(42), jax.random.uniform(jax.random.key(42),(4,4)))
A = jnp.arange(16).reshape(4, 4).astype(jnp.float32)
B = jnp.arange(16, 32).reshape(4, 4).astype(jnp.float32)
A_sharded = jax.device_put(A, NamedSharding(mesh_2x2, P(None, 'x')))
B_unsharded = B
print(B.sharding)
print(B_unsharded.sharding)
for shard in A_sharded.addressable_shards:
    print(f"\nDevice {shard.device.id} has A columns {shard.index[1]}:")
    print(shard.data)
