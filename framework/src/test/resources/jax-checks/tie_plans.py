# Run: XLA_FLAGS=--xla_force_host_platform_device_count=8 python tie_plans.py (JAX 0.10.2): dot_general with J split
# over different axes of equal size on both operands; the smaller operand moves, on a tie the lhs.
import jax, jax.numpy as jnp, re
from jax.sharding import PartitionSpec as P, NamedSharding, AxisType
mesh = jax.make_mesh((2,2),('x','y'), axis_types=(AxisType.Auto,)*2)
def colls(txt):
    return [re.sub(r', metadata=.*','',l.strip())[:160] for l in txt.splitlines() if re.search(r'(all-reduce|all-gather|reduce-scatter|collective-permute|all-to-all)\(', l)]
for (ls,rs,lsp,rsp) in [((4,8),(8,4),P(None,'x'),P('y',None)),((4,8),(8,4),P(None,'y'),P('x',None)),((8,8),(8,8),P(None,'x'),P('y',None)),((4,8),(8,16),P(None,'x'),P('y',None)),((16,8),(8,4),P(None,'x'),P('y',None))]:
    a = jax.device_put(jnp.ones(ls), NamedSharding(mesh,lsp)); b = jax.device_put(jnp.ones(rs), NamedSharding(mesh,rsp))
    c = jax.jit(lambda a,b: a@b).lower(a,b).compile()
    print(ls,lsp,rs,rsp, c.output_shardings); [print('   ',x) for x in colls(c.as_text())]
