package dev.shardlings.primitive;

import dev.shardlings.TestArrays;
import dev.shardlings.array.DType;
import dev.shardlings.array.NDArray;
import dev.shardlings.sharding.Mesh;
import dev.shardlings.sharding.NamedSharding;
import dev.shardlings.spmd.ShardedArray;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import java.util.stream.Stream;

import static dev.shardlings.sharding.PartitionSpec.P;
import static dev.shardlings.sharding.PartitionSpec.tuple;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * Every row of jax-auto.md §2 (Explicit axes, mesh X=4, Y=2, {@code a} = f32[8,4] with P('X','Y')), run through
 * the global-view API eagerly: the result's {@code jax.typeof} text, or the error type and JAX's text verbatim.
 * Rows that succeed also run, so their values are checked against the same program on whole arrays.
 */
class ExplicitTypingTableTest {

    private static final Mesh MESH = Mesh.makeMesh(new int[] {4, 2}, "X", "Y");

    private static NDArray data(int... shape) {
        return TestArrays.cyclic(7, 11, shape);
    }

    private static ShardedArray put(NDArray x, Object... spec) {
        return ShardedArray.devicePut(x, new NamedSharding(MESH, P(spec)));
    }

    private static final NDArray A = data(8, 4);
    private static final NDArray S = data(8, 8);

    private static ShardedArray a() {
        return put(A, "X", "Y");
    }

    private record Row(String expression, Supplier<ShardedArray> program, Supplier<NDArray> whole, String type,
                       Class<? extends Throwable> error, String message) {
    }

    private static Row ok(String expression, Supplier<ShardedArray> program, Supplier<NDArray> whole, String type) {
        return new Row(expression, program, whole, type, null, null);
    }

    private static Row err(String expression, Supplier<ShardedArray> program, String message) {
        return new Row(expression, program, null, null, ShardingTypeError.class, message);
    }

    private static final String CONTRACT = "Contracting dimensions are sharded and it is ambiguous how the output"
            + " should be sharded. Please specify the output sharding via the `out_sharding` parameter. Got"
            + " lhs_contracting_spec=('X',) and rhs_contracting_spec=('X',)";
    private static final String GATHER = "Use `.at[...].get(out_sharding=)` to provide output PartitionSpec for the"
            + " gather indexing as out sharding could not be resolved unambiguously (or would require collectives on"
            + " inputs). Got operand=ShapedArray(float32[8@X,4@Y]), indices=ShapedArray(int32[%s])";
    private static final String RESHAPE = "This reshape is not supported. Please specify the sharding of the output"
            + " via the `out_sharding` argument of jax.lax.reshape. Got operand type: float32[8@X,4@Y], new sizes: %s";

    static List<Row> rows() {
        List<Row> r = new ArrayList<>();
        r.add(ok("typeof P(X,Y)", () -> a(), () -> A, "float32[8@X,4@Y]"));
        r.add(ok("sin", () -> a().sin(), () -> A.sin(), "float32[8@X,4@Y]"));
        r.add(ok("add same", () -> a().add(a()), () -> A.add(A), "float32[8@X,4@Y]"));
        r.add(ok("add P(X,Y)+P(X,None)", () -> a().add(put(A, "X", null)), () -> A.add(A), "float32[8@X,4@Y]"));
        r.add(err("add P(X,Y)+P(Y,X)", () -> a().add(put(A, "Y", "X")),
                "add got incompatible shardings for broadcasting: ('X', 'Y'), ('Y', 'X')."));
        r.add(ok("add P(X,None)+P(None,Y)", () -> put(A, "X", null).add(put(A, null, "Y")), () -> A.add(A),
                "float32[8@X,4@Y]"));
        r.add(ok("add scalar", () -> a().add(1.0), () -> A.add(1f), "float32[8@X,4@Y]"));
        r.add(ok("add uncommitted", () -> a().add(A), () -> A.add(A), "float32[8@X,4@Y]"));
        NDArray row = data(4);
        r.add(ok("broadcast row P(Y) to (8,4)", () -> a().add(put(row, "Y")), () -> A.add(row), "float32[8@X,4@Y]"));
        NDArray row8 = data(8);
        r.add(err("broadcast row P(X)?", () -> put(S, "X", null).add(put(row8, "X")),
                "add operation with inputs: f32[8@X,8], f32[1,8@X] produces an illegally sharded result:"
                        + " f32[8@X,8@X]"));
        r.add(ok("dot I_X,J @ J,K_Y", () -> put(S, "X", null).matmul(put(S, null, "Y")), () -> S.matmul(S),
                "float32[8@X,8@Y]"));
        r.add(ok("dot I,J_X @ J,K (rep)", () -> put(S, null, "X").matmul(put(S)), () -> S.matmul(S),
                "float32[8,8]"));
        r.add(err("dot I,J_X @ J_X,K", () -> put(S, null, "X").matmul(put(S, "X", null)), CONTRACT));
        r.add(ok("dot I,J_X @ J_X,K out=P()", () -> put(S, null, "X").matmul(put(S, "X", null), P()),
                () -> S.matmul(S), "float32[8,8]"));
        r.add(ok("dot I,J_X @ J_X,K out=P(X,None)", () -> put(S, null, "X").matmul(put(S, "X", null), P("X", null)),
                () -> S.matmul(S), "float32[8@X,8]"));
        r.add(err("dot I_X,J @ J,K_X", () -> put(S, "X", null).matmul(put(S, null, "X")),
                "dot_general operation with inputs: f32[8@X,8], f32[8,8@X] produces an illegally sharded result:"
                        + " f32[8@X,8@X]"));
        r.add(ok("dot I,J_X @ J,K_X", () -> put(S, null, "X").matmul(put(S, null, "X")), () -> S.matmul(S),
                "float32[8,8@X]"));
        r.add(ok("sum axis0 of P(X,Y)", () -> a().sum(0), () -> A.sum(0), "float32[4@Y]"));
        r.add(ok("sum axis1 of P(X,Y)", () -> a().sum(1), () -> A.sum(1), "float32[8@X]"));
        r.add(ok("mean all of P(X,Y)", () -> a().mean(), () -> A.mean(), "float32[]"));
        r.add(ok("max axis0 of P(X,Y)", () -> a().max(0), () -> A.max(0), "float32[4@Y]"));
        r.add(ok("transpose P(X,Y)", () -> a().transpose(), () -> A.transpose(), "float32[4@Y,8@X]"));
        r.add(ok("reshape (8,4)->(4,2,4) P(X,Y)", () -> a().reshape(4, 2, 4), () -> A.reshape(4, 2, 4),
                "float32[4@X,2,4@Y]"));
        r.add(ok("reshape (8,4)->(32,) P(X,Y)", () -> a().reshape(32), () -> A.reshape(32), "float32[32@(X,Y)]"));
        r.add(err("reshape (8,4)->(2,4,4) P(X,Y)", () -> a().reshape(2, 4, 4), String.format(RESHAPE, "(2, 4, 4)")));
        r.add(err("reshape (8,4)->(4,2,2,2) P(X,Y)", () -> a().reshape(4, 2, 2, 2),
                String.format(RESHAPE, "(4, 2, 2, 2)")));
        r.add(ok("reshape w/ out_sharding", () -> a().reshape(P(), 32), () -> A.reshape(32), "float32[32]"));
        r.add(err("roll axis0 P(X,Y)", () -> a().roll(1, 0), "slicing on sharded dims where out dim (1) is not"
                + " divisible by mesh axes (4) with spec (X) is not implemented. Got input type=f32[8@X,4@Y] and"
                + " output shape=(1, 4)"));
        r.add(err("index row 0", () -> a().index(0), String.format(GATHER, "1")));
        r.add(ok("reshard P(X,Y)->P(Y,X)", () -> a().reshard(P("Y", "X")), () -> A, "float32[8@Y,4@X]"));
        r.add(ok("reshard P(X,Y)->P()", () -> a().reshard(P()), () -> A, "float32[8,4]"));
        r.add(ok("concatenate axis0", () -> ShardedArray.concatenate(0, a(), a()), () -> NDArray.concat(0, A, A),
                "float32[16@X,4@Y]"));
        r.add(err("take rows", () -> a().take(NDArray.of(1, 3), 0), String.format(GATHER, "2,1")));
        NDArray labels = NDArray.of(0, 1, 2, 3, 3, 2, 1, 0);
        r.add(ok("one_hot", () -> put(labels, "X").oneHot(4), () -> NDArray.concat(0,
                java.util.stream.IntStream.range(0, 8).mapToObj(i -> oneHotRow(labels.intAt(i))).toList()),
                "float32[8@X,4]"));
        r.add(ok("einsum bd,df->bf Y contract with out_sharding", () -> put(A, "X", "Y").matmul(put(data(4, 6), "Y",
                null), P("X", null)), () -> A.matmul(data(4, 6)), "float32[8@X,6]"));
        r.add(new Row("einsum bd,df->bf Y contract", () -> put(A, "X", "Y").matmul(put(data(4, 6), "Y", null)), null,
                null, ShardingTypeError.class, "Contracting dimensions are sharded and it is ambiguous how the output"
                + " should be sharded. Please specify the output sharding via the `out_sharding` parameter. Got"
                + " lhs_contracting_spec=('Y',) and rhs_contracting_spec=('Y',)"));
        r.add(ok("zeros out_sharding", () -> {
            // As JAX, a NamedSharding out_sharding on a multi-device Explicit mesh needs the mesh in context.
            try (dev.shardlings.spmd.MeshContext ctx = dev.shardlings.spmd.MeshContext.setMesh(MESH)) {
                return ShardedArray.zeros(new NamedSharding(MESH, P("X", "Y")), DType.FLOAT32, 8, 4);
            }
        }, () -> NDArray.zeros(DType.FLOAT32, 8, 4), "float32[8@X,4@Y]"));
        r.add(new Row("wsc in explicit", () -> a().withShardingConstraint(P("Y", "X")), null, null,
                AssertionError.class, "`with_sharding_constraint` acts as an assert when all axes of mesh are of type"
                + " `Explicit`. The array sharding: P('X', 'Y') did not match the sharding provided: P('Y', 'X')."
                + " Please use `jax.sharding.reshard` to shard your input to the sharding you want."));
        r.add(ok("wsc matching in explicit", () -> a().withShardingConstraint(P("X", "Y")), () -> A,
                "float32[8@X,4@Y]"));
        r.add(ok("tuple spec typeof", () -> put(data(32), tuple("X", "Y")), () -> data(32), "float32[32@(X,Y)]"));
        // comparisons and jnp.where, checked in JAX 0.10.2 on the same mesh
        String abstractMesh = "AbstractMesh('X': 4, 'Y': 2, axis_types=(Explicit, Explicit), device_kind=cpu,"
                + " num_cores=None, platform=cpu)";
        r.add(ok("a > 3.", () -> a().greater(3.0), () -> A.greater(3.0), "bool[8@X,4@Y]"));
        r.add(ok("a > P(X,None)", () -> a().greater(put(A, "X", null)), () -> A.greater(A), "bool[8@X,4@Y]"));
        r.add(err("a > P(Y,None)", () -> a().greater(put(A, "Y", null)),
                "gt got incompatible shardings for broadcasting: ('X', 'Y'), ('Y', None)."));
        r.add(ok("where(a > 3., a, 0.)", () -> ShardedArray.where(a().greater(3.0), a(), 0.0),
                () -> NDArray.where(A.greater(3.0), A, 0.0), "float32[8@X,4@Y]"));
        r.add(ok("where(P(X,None) > 3., a, 0.): the condition is resharded",
                () -> ShardedArray.where(put(A, "X", null).greater(3.0), a(), 0.0),
                () -> NDArray.where(A.greater(3.0), A, 0.0), "float32[8@X,4@Y]"));
        r.add(ok("where(a > 3., P(X,None), 0.): the case is resharded",
                () -> ShardedArray.where(a().greater(3.0), put(A, "X", null), 0.0),
                () -> NDArray.where(A.greater(3.0), A, 0.0), "float32[8@X,4@Y]"));
        r.add(ok("where(P(None,None) > 3., a, 0.)", () -> ShardedArray.where(put(A, null, null).greater(3.0), a(), 0.0),
                () -> NDArray.where(A.greater(3.0), A, 0.0), "float32[8@X,4@Y]"));
        r.add(ok("where(a > 3., 1., P(None,None))", () -> ShardedArray.where(a().greater(3.0), 1.0, put(A, null, null)),
                () -> NDArray.where(A.greater(3.0), 1.0, A), "float32[8@X,4@Y]"));
        r.add(err("where(P(Y,None) > 3., a, 0.)", () -> ShardedArray.where(put(A, "Y", null).greater(3.0), a(), 0.0),
                "broadcast_shardings got incompatible shardings for broadcasting: ('Y', None), ('X', 'Y'),"
                        + " (None, None)."));
        r.add(err("where(a > 3., a, P(X,None))", () -> ShardedArray.where(a().greater(3.0), a(), put(A, "X", null)),
                "select cases must have the same shardings, got [NamedSharding(mesh=" + abstractMesh
                        + ", spec=P('X', None)), NamedSharding(mesh=" + abstractMesh + ", spec=P('X', 'Y'))]."));
        r.add(err("where(P(X,None) > 3., a, a)", () -> ShardedArray.where(put(A, "X", null).greater(3.0), a(), a()),
                "select `which` must be scalar or have the same sharding as cases, got `which` sharding"
                        + " NamedSharding(mesh=" + abstractMesh + ", spec=P('X', None)) but case sharding"
                        + " NamedSharding(mesh=" + abstractMesh + ", spec=P('X', 'Y'))."));
        r.add(err("where(scalar, P(X,None), P(None,None)): a scalar condition is not broadcast",
                () -> ShardedArray.where(put(NDArray.fromBooleans(new boolean[] {true})), put(A, "X", null),
                        put(A, null, null)),
                "select cases must have the same shardings, got [NamedSharding(mesh=" + abstractMesh
                        + ", spec=P(None, None)), NamedSharding(mesh=" + abstractMesh + ", spec=P('X', None))]."));
        r.add(ok("where(scalar, a, 0.)", () -> ShardedArray.where(put(NDArray.fromBooleans(new boolean[] {false})),
                a(), 0.0), () -> NDArray.zeros(DType.FLOAT32, 8, 4), "float32[8@X,4@Y]"));
        r.add(err("where(a > 3., P(None,None), P(None,None))",
                () -> ShardedArray.where(a().greater(3.0), put(A, null, null), put(A, null, null)),
                "select `which` must be scalar or have the same sharding as cases, got `which` sharding"
                        + " NamedSharding(mesh=" + abstractMesh + ", spec=P('X', 'Y')) but case sharding"
                        + " NamedSharding(mesh=" + abstractMesh + ", spec=P(None, None))."));
        return r;
    }

    private static NDArray oneHotRow(int label) {
        float[] v = new float[4];
        v[label] = 1f;
        return NDArray.fromFloats(v, 1, 4);
    }

    @TestFactory
    Stream<DynamicTest> everyRowOfTheTable() {
        return rows().stream().map(row -> DynamicTest.dynamicTest(row.expression(), () -> {
            if (row.error() != null) {
                Throwable t = assertThrows(row.error(), () -> row.program().get());
                assertEquals(row.message(), t.getMessage());
                return;
            }
            ShardedArray out = row.program().get();
            assertEquals(row.type(), out.type().toString());
            NDArray expected = row.whole().get();
            NDArray got = out.gather();
            assertEquals(java.util.Arrays.toString(expected.shape()), java.util.Arrays.toString(got.shape()));
            org.junit.jupiter.api.Assertions.assertTrue(got.allclose(expected, 1e-5, 1e-5),
                    () -> "values differ: expected " + expected + " got " + got);
        }));
    }

    @org.junit.jupiter.api.Test
    void anAutoMeshTypesWithoutShardings() {
        Mesh auto = Mesh.ofDeviceIds(new int[] {0, 1, 2, 3, 4, 5, 6, 7}, new int[] {4, 2}, "X", "Y");
        ShardedArray x = ShardedArray.devicePut(A, new NamedSharding(auto, P("X", "Y")));
        assertEquals("float32[8,4]", x.type().toString());
        assertEquals("f32[8,4]", x.type().shortString());
    }
}
