# ProcessViewTest and Tour01Devices' process view: two real JAX 0.10.2 processes on CPU (jax.distributed over
# loopback, gloo collectives), 4 devices each. Run both at once; each prints its own view:
#   for p in 0 1; do XLA_FLAGS=--xla_force_host_platform_device_count=4 /work/jaxvenv/bin/python process_view.py $p & done; wait
# A single-process run (python process_view.py with 8 devices and no argument) prints process_count 1.
import sys, os
pid = int(sys.argv[1]) if len(sys.argv) > 1 else None
import jax
jax.config.update("jax_cpu_collectives_implementation", "gloo")
if pid is not None:
    jax.distributed.initialize(coordinator_address="127.0.0.1:23456", num_processes=2, process_id=pid)
import jax.numpy as jnp
from jax.sharding import NamedSharding, PartitionSpec as P
import numpy as np
out = []
pr = lambda *a: out.append(" ".join(str(x) for x in a))
pr("process_count", jax.process_count(), "process_index", jax.process_index())
pr("devices", jax.devices())
pr("local_devices", jax.local_devices())
pr("device process_index", [d.process_index for d in jax.devices()])
a = jnp.arange(8)
pr("fresh", a.sharding, a.devices())
mesh = jax.make_mesh((8,), ('i',))
pr("mesh", mesh, mesh.devices)
s = NamedSharding(mesh, P('i'))
x = jax.make_array_from_callback((8,), s, lambda idx: np.arange(8)[idx])
pr("is_fully_addressable", x.is_fully_addressable, "global shape", x.shape)
for sh in x.addressable_shards:
    pr("shard", sh.device, sh.index, sh.data)
y = jnp.tanh(x)
for sh in y.addressable_shards:
    pr("tanh shard", sh.device, sh.data)
m2 = jax.make_mesh((4, 2), ('i', 'j'))
pr("mesh 4x2", m2.devices.tolist())
print("\n".join(f"[{pid}] {l}" for l in out), flush=True)
