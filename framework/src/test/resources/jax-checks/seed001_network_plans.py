# XLA's per-device program for seed 001's jitted gradient step (gradfun = jit(grad(loss))) at layer sizes
# [64, 128, 128, 128, 10], batch 128: 8-way data parallel, and 4 x 2 data x tensor parallel (Auto axes).
# Pinned by framework/src/test/java/dev/shardlings/jit/XlaMatmulPlansTest.java.
# Run: XLA_FLAGS=--xla_force_host_platform_device_count=8 /work/jaxvenv/bin/python seed001_network_plans.py
import jax
import jax.numpy as jnp
from jax.sharding import AxisType, NamedSharding, PartitionSpec as P

KINDS = ('all-reduce(', 'all-gather(', 'collective-permute(', 'all-to-all(', 'reduce-scatter(')
SIZES = [64, 128, 128, 128, 10]
BATCH = 128


def loss(params, batch):
    inputs, targets = batch
    for W, b in params:
        outputs = jnp.dot(inputs, W) + b
        inputs = jnp.maximum(outputs, 0)
    return jnp.mean(jnp.sum((outputs - targets) ** 2, axis=-1))


def show(name, mesh, param_specs, batch_spec):
    params = [(jax.device_put(jnp.ones((SIZES[l], SIZES[l + 1])), NamedSharding(mesh, param_specs[2 * l])),
               jax.device_put(jnp.ones((SIZES[l + 1],)), NamedSharding(mesh, param_specs[2 * l + 1])))
              for l in range(len(SIZES) - 1)]
    batch = (jax.device_put(jnp.ones((BATCH, SIZES[0])), NamedSharding(mesh, batch_spec)),
             jax.device_put(jnp.ones((BATCH, SIZES[-1])), NamedSharding(mesh, batch_spec)))
    text = jax.jit(jax.grad(loss)).lower(params, batch).compile().as_text()
    print('=====', name)
    for line in text.splitlines():
        if any(k in line for k in KINDS) and 'ENTRY' not in line:
            print('   ', line.strip().split(', metadata')[0])


m8 = jax.make_mesh((8,), ('batch',), axis_types=(AxisType.Auto,))
show('DP 8', m8, [P()] * 8, P('batch'))
m42 = jax.make_mesh((4, 2), ('batch', 'model'), axis_types=(AxisType.Auto,) * 2)
show('DP x TP 4 x 2', m42, [P(), P(), P(None, 'model'), P('model'), P('model', None), P(), P(), P()],
     P('batch', None))
