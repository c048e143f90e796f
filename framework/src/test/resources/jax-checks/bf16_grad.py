# Cotangents of bfloat16 programs as JAX 0.10.2 computes them on CPU: a cotangent has its primal's dtype, the
# transpose of astype(bf16) converts back to f32, dot_general with preferred_element_type=f32 of bf16 operands.
# Pinned by framework/src/test/java/dev/shardlings/autodiff/BFloat16GradTest.java.
# Run: /work/jaxvenv/bin/python bf16_grad.py
import numpy as np
import jax
import jax.numpy as jnp

bf = jnp.bfloat16


def vals(n, a, b):
    # exactly what Java's (float) ((i * a % 101 - 50) / b) gives: numpy rounds the double to nearest even too
    return np.array([np.float32((i * a % 101 - 50) / b) for i in range(n)], dtype=np.float32)


def bits(x):
    x = np.asarray(x)
    if x.dtype == np.float32:
        return ' '.join('%08x' % int(v) for v in x.view(np.uint32).ravel())
    return ' '.join('%04x' % int(v) for v in x.view(np.uint16).ravel())


def show(name, xs):
    for k, x in enumerate(xs):
        print(name, k, str(np.asarray(x).dtype), bits(x))


x = jnp.asarray(vals(12, 37, 17.0)).reshape(3, 4)
w = jnp.asarray(vals(20, 53, 23.0)).reshape(4, 5)
ct = jnp.asarray(vals(15, 29, 13.0)).reshape(3, 5)

# astype: f32 -> bf16 -> f32; the bf16 cotangent is rounded, then converted back
show('astype', jax.vjp(lambda a: a.astype(bf) * a.astype(bf), x)[1](jnp.asarray(vals(12, 31, 7.0)).reshape(3, 4).astype(bf)))
# mul of bf16 values: cotangent bf16, rounded after each product
xb, wb = x.astype(bf), w.astype(bf)
show('mul', jax.grad(lambda a, b: jnp.sum(a * b * a).astype(jnp.float32), argnums=(0, 1))(xb, jnp.asarray(vals(12, 41, 9.0)).reshape(3, 4).astype(bf)))
# sum of bf16 values then relu
show('relu', jax.grad(lambda a: jnp.sum(jax.nn.relu(a) * a), argnums=0)(xb))
# matmul with preferred_element_type=f32 of bf16 operands (cast from f32 masters)
f = lambda a, b: jnp.matmul(a.astype(bf), b.astype(bf), preferred_element_type=jnp.float32)
show('matmul', jax.vjp(f, x, w)[1](ct))
# the same with bf16 primal operands: their cotangents
g = lambda a, b: jnp.matmul(a, b, preferred_element_type=jnp.float32)
show('matmul_bf16', jax.vjp(g, xb, wb)[1](ct))
# an MLP-like loss: relu of the f32 product, squared mean in f32
def loss(a, b):
    h = jnp.matmul(a.astype(bf), b.astype(bf), preferred_element_type=jnp.float32)
    return jnp.mean(jax.nn.relu(h) ** 2)
show('loss', jax.grad(loss, argnums=(0, 1))(x, w))
# the transpose: dot_general(ct f32, bf16 operand, preferred f32), then convert to bf16 (the primal's dtype)
print(jax.make_jaxpr(jax.vjp(g, xb, wb)[1])(ct))
