package dev.shardlings.autodiff;

import dev.shardlings.array.DType;
import dev.shardlings.array.NDArray;
import dev.shardlings.sharding.Mesh;
import dev.shardlings.sharding.NamedSharding;
import dev.shardlings.spmd.ShardedArray;
import org.junit.jupiter.api.Test;

import java.util.List;

import static dev.shardlings.sharding.PartitionSpec.P;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Cotangents of bfloat16 programs, bit for bit as JAX 0.10.2 computes them on CPU
 * (resources/jax-checks/bf16_grad.py prints every expected line): a cotangent has its primal's dtype, so the
 * backward pass rounds to bfloat16 wherever the forward did; the transpose of {@code astype(bf16)} converts the
 * cotangent back to float32; the transpose of a matmul with {@code preferred_element_type=float32} of bfloat16
 * operands contracts the float32 cotangent with the bfloat16 operand in float32 and rounds the result to bfloat16.
 */
class BFloat16GradTest {
    private static final DType BF = DType.BFLOAT16;

    /** The script's {@code vals}: {@code float32((i * a % 101 - 50) / b)}. */
    private static NDArray vals(int n, int a, double b, int... shape) {
        float[] v = new float[n];
        for (int i = 0; i < n; i++) {
            v[i] = (float) ((i * a % 101 - 50) / b);
        }
        return NDArray.of(v).reshape(shape);
    }

    private static String bits(NDArray x) {
        StringBuilder sb = new StringBuilder();
        for (float f : x.toFloatArray()) {
            int b = Float.floatToRawIntBits(f);
            sb.append(sb.length() > 0 ? " " : "")
                    .append(x.dtype() == BF ? String.format("%04x", b >>> 16) : String.format("%08x", b));
        }
        return x.dtype().jaxName() + " " + sb;
    }

    private static void expect(String jax, NDArray got) {
        assertEquals(jax, bits(got));
    }

    private final NDArray x = vals(12, 37, 17.0, 3, 4);
    private final NDArray w = vals(20, 53, 23.0, 4, 5);
    private final NDArray ct = vals(15, 29, 13.0, 3, 5);

    @Test
    void astypeCotangentIsRoundedThenConvertedBack() {
        var r = Autodiff.<NDArray>vjp(a -> List.of(a.get(0).astype(BF).mul(a.get(0).astype(BF))), List.of(x));
        NDArray g = r.pullback().apply(List.of(vals(12, 31, 7.0, 3, 4).astype(BF))).get(0);
        expect("float32 42280000 40850000 409b0000 c1e80000 3faf0000 40120000 c18d0000 c0840000 c03d0000 c1120000"
                + " c1450000 41170000", g);
    }

    @Test
    void productOfBFloat16ValuesHasBFloat16Cotangents() {
        NDArray y = vals(12, 41, 9.0, 3, 4).astype(BF);
        List<NDArray> g = Autodiff.<NDArray>gradList(a -> a.get(0).mul(a.get(1)).mul(a.get(0)).sum()
                .astype(DType.FLOAT32), 0, 1).apply(List.of(x.astype(BF), y));
        expect("bfloat16 4203 3fc4 4121 416b bf03 c1a7 4017 404d c167 c086 c11c 3fec", g.get(0));
        expect("bfloat16 410a 3f16 4000 40b2 3d00 4080 4048 3e2e 40d7 3fb2 3f80 40f5", g.get(1));
    }

    @Test
    void globalArraysHaveTheSameBFloat16Cotangents() {
        Mesh m = Mesh.makeMesh(new int[]{2}, "x");
        ShardedArray a = ShardedArray.devicePut(x.astype(BF), new NamedSharding(m, P(null, "x")));
        ShardedArray b = ShardedArray.devicePut(vals(12, 41, 9.0, 3, 4).astype(BF), new NamedSharding(m, P()));
        List<ShardedArray> g = Autodiff.<ShardedArray>gradList(v -> v.get(0).mul(v.get(1)).mul(v.get(0)).sum()
                .astype(DType.FLOAT32), 0, 1).apply(List.of(a, b));
        expect("bfloat16 4203 3fc4 4121 416b bf03 c1a7 4017 404d c167 c086 c11c 3fec", g.get(0).gather());
        expect("bfloat16 410a 3f16 4000 40b2 3d00 4080 4048 3e2e 40d7 3fb2 3f80 40f5", g.get(1).gather());
    }

    @Test
    void reluOfBFloat16() {
        NDArray g = Autodiff.<NDArray>grad(a -> a.relu().mul(a).sum()).apply(x.astype(BF));
        expect("bfloat16 0000 0000 4035 0000 0000 4080 0000 3f53 40a6 0000 4000 0000", g);
    }

    @Test
    void matmulWithFloat32AccumulationOfCastMasters() {
        var r = Autodiff.<NDArray>vjp(a -> List.of(a.get(0).astype(BF).matmul(a.get(1).astype(BF), DType.FLOAT32)),
                List.of(x, w));
        List<NDArray> g = r.pullback().apply(List.of(ct));
        expect("float32 414a0000 c0b50000 40f10000 c12c0000 40db0000 c04d0000 40520000 c0d90000 3f910000 bf430000"
                + " bf770000 c0390000", g.get(0));
        expect("float32 41980000 c0160000 c0090000 c0530000 bfe50000 bfb70000 40fc0000 c0f20000 c0ee0000 40fa0000"
                + " bfda0000 c1000000 40e40000 41090000 c10c0000 3f4d0000 413c0000 bff90000 c1470000 41870000",
                g.get(1));
    }

    @Test
    void matmulWithFloat32AccumulationOfBFloat16Operands() {
        var r = Autodiff.<NDArray>vjp(a -> List.of(a.get(0).matmul(a.get(1), DType.FLOAT32)),
                List.of(x.astype(BF), w.astype(BF)));
        List<NDArray> g = r.pullback().apply(List.of(ct));
        expect("bfloat16 414a c0b5 40f1 c12c 40db c04d 4052 c0d9 3f91 bf43 bf77 c039", g.get(0));
        expect("bfloat16 4198 c016 c009 c053 bfe5 bfb7 40fc c0f2 c0ee 40fa bfda c100 40e4 4109 c10c 3f4d 413c bff9"
                + " c147 4187", g.get(1));
    }

    @Test
    void mlpLossInFloat32OverABFloat16Product() {
        List<NDArray> g = Autodiff.<NDArray>gradList(a -> a.get(0).astype(BF).matmul(a.get(1).astype(BF),
                DType.FLOAT32).relu().square().mean(), 0, 1).apply(List.of(x, w));
        expect("float32 3ce30000 bf8f0000 3f7c0000 be280000 c0530000 3faa0000 bfbb0000 404a0000 3e930000 bfda0000"
                + " 3fcd0000 beca0000", g.get(0));
        expect("float32 be9a0000 3e460000 bdcb0000 3f100000 bdd10000 3f860000 bf8a0000 3f900000 bf760000 3f940000"
                + " bf5f0000 3fa30000 bf7e0000 3f890000 bf820000 3d7e0000 c0330000 3e6d0000 c01d0000 3e730000",
                g.get(1));
    }
}
