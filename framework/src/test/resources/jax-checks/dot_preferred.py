# dot_general's preferred_element_type on global arrays, as JAX 0.10.2 computes and prints it on CPU: bf16 operands,
# f32 result unrounded, eager and under jit, a contraction split over 8 devices (f32 partial sums all-reduced in f32),
# the jaxpr's dot_general parameters, the transpose (the cotangent's dot keeps preferred_element_type=float32 and is
# converted to the operand's bf16), and the error for narrowing an integral result. The batched einsum's K = 8 sums
# come out in XLA:CPU's bf16 kernel order: the test holds them to one ulp (3 of 256 differ in the last bit).
# Pinned by framework/src/test/java/dev/shardlings/primitive/DotPreferredTest.java.
# Run: XLA_FLAGS=--xla_force_host_platform_device_count=8 /work/jaxvenv/bin/python dot_preferred.py
import numpy as np
import jax
import jax.numpy as jnp
from jax.sharding import NamedSharding, PartitionSpec as P, AxisType

bf = jnp.bfloat16
f32 = jnp.float32


def vals(n, a, b):
    # exactly what Java's (float) ((i * a % 101 - 50) / b) gives
    return np.array([np.float32((i * a % 101 - 50) / b) for i in range(n)], dtype=np.float32)


def bits(x):
    x = np.asarray(x)
    if x.dtype == np.float32:
        return ' '.join('%08x' % int(v) for v in x.view(np.uint32).ravel())
    return ' '.join('%04x' % int(v) for v in x.view(np.uint16).ravel())


def show(name, x):
    print(name, str(np.asarray(x).dtype), bits(x))


mesh = jax.make_mesh((8,), ('x',), axis_types=(AxisType.Explicit,))
x = jnp.asarray(vals(8 * 32, 37, 17.0)).reshape(8, 32).astype(bf)
w = jnp.asarray(vals(32 * 16, 53, 23.0)).reshape(32, 16).astype(bf)
rows = jax.device_put(x, NamedSharding(mesh, P('x', None)))
cols = jax.device_put(x, NamedSharding(mesh, P(None, 'x')))
wrep = jax.device_put(w, NamedSharding(mesh, P()))
wrows = jax.device_put(w, NamedSharding(mesh, P('x', None)))

mm = lambda a, b: jnp.matmul(a, b, preferred_element_type=f32)
split = lambda a, b: jnp.matmul(a, b, preferred_element_type=f32, out_sharding=P())
es = lambda a, b: jnp.einsum('bd,df->bf', a, b, preferred_element_type=f32)
with jax.set_mesh(mesh):
    r = mm(rows, wrep)
    print('rows', r.dtype, r.sharding.spec)
    show('rows', r)
    show('rows_jit', jax.jit(mm)(rows, wrep))
    s = split(cols, wrows)
    print('split', s.dtype, s.sharding.spec)
    show('split', s)
    show('split_jit', jax.jit(split)(cols, wrows))
    print(jax.jit(split).lower(cols, wrows).compile().as_text())
    show('einsum_jit', jax.jit(es)(rows, wrep))
    print(jax.make_jaxpr(es)(rows, wrep))
    # a batch dimension split over x: one product per batch index, each accumulated in f32
    xb3 = jax.device_put(x.reshape(8, 4, 8), NamedSharding(mesh, P('x', None, None)))
    wb3 = jax.device_put(w.reshape(8, 8, 8), NamedSharding(mesh, P('x', None, None)))
    show('batched', jnp.einsum('bij,bjk->bik', xb3, wb3, preferred_element_type=f32))
    print(jax.make_jaxpr(lambda a, b: jnp.matmul(a, b))(rows, wrep))
    loss = lambda a, b: jnp.sum(jnp.einsum('bd,df->bf', a, b, preferred_element_type=f32))
    g = jax.jit(jax.grad(loss, argnums=(0, 1)))(rows, wrep)
    print('grad', g[0].dtype, g[0].sharding.spec, g[1].dtype, g[1].sharding.spec)
    show('grad_x', g[0])
    show('grad_w', g[1])
    print(jax.make_jaxpr(jax.grad(loss, argnums=(0, 1)))(rows, wrep))
try:
    jax.lax.dot_general(jnp.ones((2, 2), jnp.int32), jnp.ones((2, 2), jnp.int32), (((1,), (0,)), ((), ())),
                        preferred_element_type=jnp.bool_)
except TypeError as e:
    print('TypeError:', e)
