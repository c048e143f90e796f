package dev.shardlings.tours;

import dev.shardlings.array.DType;
import dev.shardlings.array.NDArray;
import dev.shardlings.jit.Compiled;
import dev.shardlings.jit.Jit;
import dev.shardlings.jit.Jitted;
import dev.shardlings.primitive.ShardingTypeError;
import dev.shardlings.sharding.AxisType;
import dev.shardlings.sharding.Mesh;
import dev.shardlings.sharding.NamedSharding;
import dev.shardlings.spmd.MeshContext;
import dev.shardlings.spmd.ShardedArray;

import static dev.shardlings.sharding.PartitionSpec.P;

/**
 * Tour 6 (docs/automatic-parallelism.md): seed 001's "computation follows sharding" programs (sin, dot, copy and
 * the two sharding constraints) with their layouts, seed 002's two matmuls with and without a
 * {@code with_sharding_constraint} between them, seed 002's {@code matmul_square} compiled with
 * {@code out_shardings=P('X', None)} and its per-device program, and the same program on Explicit axes, where the
 * contraction needs an out sharding. Run: {@code mvn -q -pl docs exec:exec -Dtour=Tour06AutomaticParallelism}.
 */
public final class Tour06AutomaticParallelism {

    private Tour06AutomaticParallelism() {
    }

    private static NDArray values(int rows, int cols) {
        float[] v = new float[rows * cols];
        for (int i = 0; i < v.length; i++) {
            v[i] = (float) Math.sin(i * 0.37);
        }
        return NDArray.fromFloats(v, rows, cols);
    }

    /** Prints the layouts, the compiled programs and the type error. */
    public static void main(String[] args) {
        // The notebook's meshes behave as Auto axes; jax.make_mesh gives Explicit axes in JAX 0.10.2, so ask for Auto.
        Mesh ab = Mesh.makeMesh(new int[] {4, 2}, new String[] {"a", "b"}, AxisType.AUTO, AxisType.AUTO);
        NDArray whole = values(1024, 1024);
        ShardedArray x = ShardedArray.devicePut(whole, new NamedSharding(ab, P("a", "b")));
        System.out.println("== seed 001: computation follows sharding (mesh " + ab + ", Auto axes)");
        System.out.println("input sharding:");
        System.out.print(x.visualize());
        ShardedArray y = x.sin();
        System.out.println("sin output sharding: " + y.spec());
        System.out.print(y.visualize());

        ShardedArray lhs = ShardedArray.devicePut(whole, new NamedSharding(ab, P("a", null)));
        ShardedArray rhs = ShardedArray.devicePut(whole, new NamedSharding(ab, P(null, "b")));
        System.out.println("lhs sharding " + lhs.spec() + ", rhs sharding " + rhs.spec());
        ShardedArray w = lhs.matmul(rhs);
        System.out.println("dot output sharding: " + w.spec());
        System.out.print(w.visualize());
        System.out.println("dot equals the single-device product: "
                + w.gather().allclose(whole.matmul(whole), 1e-4, 1e-3));
        System.out.println("copy keeps the sharding: " + w.copy().spec());

        Mesh xy = Mesh.makeMesh(new int[] {4, 2}, new String[] {"x", "y"}, AxisType.AUTO, AxisType.AUTO);
        ShardedArray xs = ShardedArray.devicePut(whole, new NamedSharding(xy, P("x", "y")));
        for (Object[] c : new Object[][] {{"P('y', 'x')", P("y", "x")}, {"P()", P()}}) {
            System.out.println();
            System.out.println("== seed 001: x + 1, then with_sharding_constraint(" + c[0] + ")");
            Jitted f = Jit.jit(v -> v.add(1.0).withShardingConstraint((dev.shardlings.sharding.PartitionSpec) c[1]))
                    .named("f");
            ShardedArray out = f.call(xs).get(0);
            System.out.println("output sharding: " + out.spec());
            System.out.print(out.visualize());
            System.out.println("communication:");
            f.lower(xs).asText().lines().filter(l -> l.contains("all-") || l.contains("dynamic-slice")
                    || l.contains("collective-permute"))
                    .forEach(l -> System.out.println("  " + l.trim()));
        }

        twoMatmulsWithAConstraint();

        System.out.println();
        System.out.println("== seed 002: matmul_square, jit with out_shardings=P('X', None) (2 x 2 mesh, Auto axes)");
        Mesh m = Mesh.makeMesh(new int[] {2, 2}, new String[] {"X", "Y"}, AxisType.AUTO, AxisType.AUTO);
        // jnp.zeros(..., out_sharding=...) names Explicit axes only (JAX refuses Auto ones), so on Auto axes the
        // arrays are placed: jax.device_put(jnp.zeros(...), NamedSharding(m, ...))
        ShardedArray in = ShardedArray.devicePut(NDArray.zeros(DType.FLOAT32, 8, 2048),
                new NamedSharding(m, P("X", "Y")));
        ShardedArray wt = ShardedArray.devicePut(NDArray.zeros(DType.FLOAT32, 2048, 8192),
                new NamedSharding(m, P("Y", null)));
        Compiled c = Jit.jit((a, b) -> a.square().matmul(b)).named("matmul_square").outShardings(P("X", null))
                .lower(in, wt);
        System.out.println(c.jaxpr());
        System.out.print(c.asText());
        System.out.println(c.costAnalysis());

        System.out.println();
        System.out.println("== the same program on Explicit axes (jax.make_mesh's default in JAX 0.10.2)");
        Mesh e = Mesh.makeMesh(new int[] {2, 2}, "X", "Y");
        // As seed 002 writes it: the mesh in context (jax.set_mesh), the arrays created with out_sharding specs.
        Compiled fixed;
        try (MeshContext ctx = MeshContext.setMesh(e)) {
            ShardedArray ie = ShardedArray.zeros(P("X", "Y"), DType.FLOAT32, 8, 2048);
            ShardedArray we = ShardedArray.zeros(P("Y", null), DType.FLOAT32, 2048, 8192);
            System.out.println("In: " + ie.type() + ", W: " + we.type());
            try {
                Jit.jit((a, b) -> a.square().matmul(b)).lower(ie, we);
            } catch (ShardingTypeError err) {
                System.out.println("ShardingTypeError: " + err.getMessage());
            }
            fixed = Jit.jit((a, b) -> a.square().matmul(b, P("X", null))).named("matmul_square").lower(ie, we);
        }
        System.out.println("with out_sharding=P('X', None): " + fixed.jaxpr().outputs().get(0).type());
        fixed.asText().lines().filter(l -> l.contains("all-")).forEach(l -> System.out.println("  " + l.trim()));
    }

    /**
     * Seed 002's two matmuls with {@code with_sharding_constraint} between them: the constraint splits the hidden
     * layer's F over 'y', so the second contraction (over F) ends in an all-reduce over 'y' that the unconstrained
     * program does not need — the seed's "not that this is a good idea", measured. JAX 0.10.2 (jax-checks/
     * seed002_sharding_constraint.py): without the constraint the products are f32[2,32] and f32[2,16] with no
     * collective; with it f32[2,16], f32[2,16] and {@code all-reduce f32[2,16], replica_groups=[4,2]<=[8]} (pairs
     * along 'y'); the output is P('x', None) both times.
     */
    private static void twoMatmulsWithAConstraint() {
        Mesh mesh = Mesh.makeMesh(new int[] {4, 2}, new String[] {"x", "y"}, AxisType.AUTO, AxisType.AUTO);
        int b = 8;
        int d = 16;
        int f = 32;
        float[] xv = new float[b * d];
        float[] win = new float[d * f];
        float[] wout = new float[d * f];
        for (int i = 0; i < xv.length; i++) {
            xv[i] = i / 100f;
        }
        for (int i = 0; i < win.length; i++) {
            win[i] = (float) Math.sin(i);
            wout[i] = (float) Math.cos(i);
        }
        ShardedArray x = ShardedArray.devicePut(NDArray.fromFloats(xv, b, d), new NamedSharding(mesh, P("x", null)));
        ShardedArray wIn = ShardedArray.devicePut(NDArray.fromFloats(win, d, f), new NamedSharding(mesh, P()));
        ShardedArray wOut = ShardedArray.devicePut(NDArray.fromFloats(wout, d, f), new NamedSharding(mesh, P()));
        for (boolean constrained : new boolean[] {false, true}) {
            System.out.println();
            System.out.println("== seed 002: two matmuls " + (constrained
                    ? "with with_sharding_constraint(hidden, P('x', 'y')) between them" : "without a constraint")
                    + " (x P('x', None), Win and Wout P(), mesh " + mesh + ")");
            Jitted two = Jit.jitList(a -> {
                ShardedArray hidden = ShardedArray.einsum("bd,df->bf", a.get(0), a.get(1));
                if (constrained) {
                    hidden = hidden.withShardingConstraint(P("x", "y"));
                }
                return java.util.List.of(ShardedArray.einsum("bf,df->bd", hidden, a.get(2)));
            }).named("matmul");
            ShardedArray out = two.call(x, wIn, wOut).get(0);
            System.out.println("output sharding: " + out.spec());
            System.out.println("per-device products and communication:");
            two.lower(x, wIn, wOut).asText().lines().filter(l -> l.contains("dot_general(") || l.contains("all-")
                    || l.contains("reduce-scatter") || l.contains("collective-permute"))
                    .forEach(l -> System.out.println("  " + l.trim()));
        }
    }
}
