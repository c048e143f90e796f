# Seed 001's 4x2 data + tensor parallel program as written, on JAX 0.10.2 (make_mesh gives Explicit axes), at
# Tour07's size. Run: XLA_FLAGS=--xla_force_host_platform_device_count=8 /work/jaxvenv/bin/python seed001_explicit.py
import jax, jax.numpy as jnp
from jax.sharding import NamedSharding, PartitionSpec as P, AxisType

def predict(params, inputs):
  for W, b in params:
    outputs = jnp.dot(inputs, W) + b
    inputs = jnp.maximum(outputs, 0)
  return outputs

def loss(params, batch):
  inputs, targets = batch
  predictions = predict(params, inputs)
  return jnp.mean(jnp.sum((predictions - targets)**2, axis=-1))

loss_jit = jax.jit(loss)
gradfun = jax.jit(jax.grad(loss))

def init_layer(key, n_in, n_out):
  k1, k2 = jax.random.split(key)
  W = jax.random.normal(k1, (n_in, n_out)) / jnp.sqrt(n_in)
  b = jax.random.normal(k2, (n_out,))
  return W, b

def init_model(key, layer_sizes, batch_size):
  key, *keys = jax.random.split(key, len(layer_sizes))
  params = list(map(init_layer, keys, layer_sizes[:-1], layer_sizes[1:]))
  key, *keys = jax.random.split(key, 3)
  inputs = jax.random.normal(keys[0], (batch_size, layer_sizes[0]))
  targets = jax.random.normal(keys[1], (batch_size, layer_sizes[-1]))
  return params, (inputs, targets)

layer_sizes = [64, 128, 128, 128, 10]
batch_size = 128
params, batch = init_model(jax.random.key(0), layer_sizes, batch_size)
step_size = 1e-5

def train(params, batch):
  for _ in range(30):
    grads = gradfun(params, batch)
    params = [(W - step_size * dW, b - step_size * db) for (W, b), (dW, db) in zip(params, grads)]
  return params

mesh = jax.make_mesh((8,), ('batch',))
print("8-way mesh axis types:", mesh.axis_types)
batch = jax.device_put(batch, NamedSharding(mesh, P('batch')))
params = jax.device_put(params, NamedSharding(mesh, P()))
print("8-way loss before", loss_jit(params, batch))
params = train(params, batch)
print("8-way loss after", loss_jit(params, batch))
dp_params = params

def tensor_parallel(mesh, params, batch):
  batch = jax.device_put(batch, NamedSharding(mesh, P('batch', None)))
  rep = NamedSharding(mesh, P())
  (W1, b1), (W2, b2), (W3, b3), (W4, b4) = params
  W1 = jax.device_put(W1, rep); b1 = jax.device_put(b1, rep)
  W2 = jax.device_put(W2, NamedSharding(mesh, P(None, 'model')))
  b2 = jax.device_put(b2, NamedSharding(mesh, P('model')))
  W3 = jax.device_put(W3, NamedSharding(mesh, P('model', None)))
  b3 = jax.device_put(b3, rep); W4 = jax.device_put(W4, rep); b4 = jax.device_put(b4, rep)
  return [(W1, b1), (W2, b2), (W3, b3), (W4, b4)], batch

# as written: Explicit axes
mesh = jax.make_mesh((4, 2), ('batch', 'model'))
print("4x2 mesh axis types:", mesh.axis_types)
p, b = tensor_parallel(mesh, dp_params, batch)
try:
  print(loss_jit(p, b))
except Exception as e:
  print(type(e).__name__ + ":", e)
try:
  gradfun(p, b)
except Exception as e:
  print("grad:", type(e).__name__ + ":", e)

# fix 1: Auto axes
mesh = jax.make_mesh((4, 2), ('batch', 'model'), axis_types=(AxisType.Auto, AxisType.Auto))
p, b = tensor_parallel(mesh, dp_params, batch)
print("auto 4x2 loss before", loss_jit(p, b))
p = train(p, b)
print("auto 4x2 loss after", loss_jit(p, b))
print("auto W2", p[1][0].sharding.spec, "W3", p[2][0].sharding.spec)

# fix 2: Explicit axes, the contraction over the split hidden columns given an out_sharding
def predict_explicit(params, inputs, mesh):
  for k, (W, b) in enumerate(params):
    if k == 2:
      outputs = jnp.dot(inputs, W, out_sharding=NamedSharding(mesh, P('batch', None))) + b
    else:
      outputs = jnp.dot(inputs, W) + b
    inputs = jnp.maximum(outputs, 0)
  return outputs

def loss_explicit(params, batch):
  inputs, targets = batch
  return jnp.mean(jnp.sum((predict_explicit(params, inputs, mesh) - targets)**2, axis=-1))

mesh = jax.make_mesh((4, 2), ('batch', 'model'))
p, b = tensor_parallel(mesh, dp_params, batch)
le = jax.jit(loss_explicit)
ge = jax.jit(jax.grad(loss_explicit))
print("explicit 4x2 loss before", le(p, b))
for _ in range(30):
  grads = ge(p, b)
  p = [(W - step_size * dW, bb - step_size * db) for (W, bb), (dW, db) in zip(p, grads)]
print("explicit 4x2 loss after", le(p, b))
print("explicit W2", p[1][0].sharding.spec, "W3", p[2][0].sharding.spec)
print("explicit W1 grad sharding", [g.sharding.spec for gg in ge(p, b) for g in gg])
