package dev.shardlings.primitive;

import dev.shardlings.array.DType;
import dev.shardlings.array.NDArray;
import dev.shardlings.autodiff.Autodiff;
import dev.shardlings.jit.Compiled;
import dev.shardlings.jit.Jit;
import dev.shardlings.sharding.Mesh;
import dev.shardlings.sharding.NamedSharding;
import dev.shardlings.sharding.PartitionSpec;
import dev.shardlings.spmd.ShardedArray;
import org.junit.jupiter.api.Test;

import java.util.List;

import static dev.shardlings.sharding.PartitionSpec.P;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * dot_general's {@code preferred_element_type} on global arrays, bit for bit as JAX 0.10.2 computes it on CPU with 8
 * devices (resources/jax-checks/dot_preferred.py prints every expected line): X[B_x, D] · W[D, F] of bfloat16
 * operands is float32, unrounded, eager and under jit, by matmul and by einsum; X[B, D_x] · W[D_x, F] with
 * out_sharding P() all-reduces float32 partial sums (its bits differ from the unsplit product's in one element:
 * the sum runs in another order); the jaxpr prints the parameter as JAX does; the cotangents' contractions keep
 * float32 and are converted to bfloat16.
 */
class DotPreferredTest {
    private static final DType BF = DType.BFLOAT16;
    private static final DType F32 = DType.FLOAT32;
    /** The script's {@code rows} (also {@code rows_jit}, {@code einsum_jit}): X[B_x, D] · W[D, F]. */
    private static final String ROWS = "float32 413c7f34 c1031ef0 bfca1c60 c1068ac0 41371a5e 4024bc30 bfd5bfd8 40a050ac bfe99f60 401dfa00 c"
            + "0edd6aa 40106178 412be28e 414776cc 3e413500 c10acade c0dd9c78 3f213080 c0b62b18 3f1f84c0 4046362c 3"
            + "dba5000 c02796c4 c1100042 c029c01c 41259c89 415a2cbc 41254fe8 c0b7b500 3fecb8d0 c10db4ec 4028b0a0 b"
            + "f9ba128 40fd91ac 416bcd08 410144a6 c0da1946 c07bb3fc c0a235d4 3fd2f5f0 c09e87ec c1147b87 40e11960 c"
            + "111aa59 4011aef0 c1249b50 40d19f64 41459a64 bfccff90 c0964250 3fc71ca0 c0b57960 3f142a40 c089fe20 4"
            + "1058f3c 416a12b8 40ecb442 bfef1e70 c142b13e c0349578 c0656480 40098208 40dac908 c0dbaba8 c10c2662 4"
            + "057a228 c17c5e24 4074ac68 40cdaa10 41a90ab6 c04c83d8 40717b48 c02b31f8 41273714 3f6d4b80 412ee360 b"
            + "f2782e0 bfb80220 c0f5b9e4 c1565600 c0810bc2 41199518 40674e0c 41248d48 c0905978 c1206e00 c0d4ffa8 c"
            + "14b3348 c0c13d36 c1230cdd 419b2bee c1190b86 40ca3c78 c16a2592 40d73900 c0947254 c0aebbe6 c0807910 4"
            + "177e202 c09026e0 3fe863e0 c136dcd0 40b86e14 bf46ff80 40a94df0 c075ce70 bf655dc0 c08a583e bf0f9730 c"
            + "0507890 40be12f8 3f9d16c0 3ff24e10 40997640 c16b5f1c 408fe016 c0ce09b4 4143e4d4 409a7344 41364486 4"
            + "09116f2 4081f376 c0bbfda0 406f9940 4110aabc 4143dbda c047aa1e c15a46fe";
    /** The script's {@code split} and {@code split_jit}: X[B, D_x] · W[D_x, F] with out_sharding P(). */
    private static final String SPLIT = "float32 413c7f34 c1031ef0 bfca1c60 c1068ac0 41371a5e 4024bc30 bfd5bfd8 40a050ac bfe99f60 401dfa00 c"
            + "0edd6aa 40106178 412be28e 414776cc 3e413500 c10acade c0dd9c78 3f213090 c0b62b18 3f1f84c0 4046362c 3"
            + "dba5000 c02796c4 c1100042 c029c01c 41259c89 415a2cbc 41254fe8 c0b7b500 3fecb8d0 c10db4ec 4028b0a0 b"
            + "f9ba128 40fd91ac 416bcd08 410144a6 c0da1946 c07bb3fc c0a235d4 3fd2f5f0 c09e87ec c1147b87 40e11960 c"
            + "111aa59 4011aef0 c1249b50 40d19f64 41459a64 bfccff90 c0964250 3fc71ca0 c0b57960 3f142a40 c089fe20 4"
            + "1058f3c 416a12b8 40ecb442 bfef1e70 c142b13e c0349578 c0656480 40098208 40dac908 c0dbaba8 c10c2662 4"
            + "057a224 c17c5e23 4074ac68 40cdaa10 41a90ab4 c04c83d8 40717b48 c02b31f8 41273714 3f6d4b80 412ee360 b"
            + "f2782e0 bfb80220 c0f5b9e4 c1565600 c0810bc2 41199518 40674e0c 41248d48 c0905978 c1206e00 c0d4ffa8 c"
            + "14b3348 c0c13d36 c1230cdd 419b2bee c1190b86 40ca3c78 c16a2592 40d73900 c0947254 c0aebbe6 c0807910 4"
            + "177e202 c09026e0 3fe863d8 c136dcd0 40b86e14 bf46ff80 40a94df0 c075ce70 bf655dc0 c08a583e bf0f9730 c"
            + "0507890 40be12f8 3f9d16c0 3ff24e10 40997640 c16b5f1c 408fe016 c0ce09b4 4143e4d4 409a7344 41364486 4"
            + "09116f2 4081f376 c0bbfda0 406f9940 4110aabc 4143dbda c047aa1e c15a46fe";
    private static final String GRAD_X = "bfloat16 c086 c02c 404b 3e86 3fdf bf97 c083 3fe4 4050 3eb1 c024 bf8c 3eca 3fee bf84 3eda c01e 4058 "
            + "3ef8 c01c bf74 3f06 4000 405e c075 c016 bf5f 40a0 4006 c0a7 3f26 c011 c086 c02c 404b 3e86 3fdf bf97"
            + " c083 3fe4 4050 3eb1 c024 bf8c 3eca 3fee bf84 3eda c01e 4058 3ef8 c01c bf74 3f06 4000 405e c075 c01"
            + "6 bf5f 40a0 4006 c0a7 3f26 c011 c086 c02c 404b 3e86 3fdf bf97 c083 3fe4 4050 3eb1 c024 bf8c 3eca 3f"
            + "ee bf84 3eda c01e 4058 3ef8 c01c bf74 3f06 4000 405e c075 c016 bf5f 40a0 4006 c0a7 3f26 c011 c086 c"
            + "02c 404b 3e86 3fdf bf97 c083 3fe4 4050 3eb1 c024 bf8c 3eca 3fee bf84 3eda c01e 4058 3ef8 c01c bf74 "
            + "3f06 4000 405e c075 c016 bf5f 40a0 4006 c0a7 3f26 c011 c086 c02c 404b 3e86 3fdf bf97 c083 3fe4 4050"
            + " 3eb1 c024 bf8c 3eca 3fee bf84 3eda c01e 4058 3ef8 c01c bf74 3f06 4000 405e c075 c016 bf5f 40a0 400"
            + "6 c0a7 3f26 c011 c086 c02c 404b 3e86 3fdf bf97 c083 3fe4 4050 3eb1 c024 bf8c 3eca 3fee bf84 3eda c0"
            + "1e 4058 3ef8 c01c bf74 3f06 4000 405e c075 c016 bf5f 40a0 4006 c0a7 3f26 c011 c086 c02c 404b 3e86 3"
            + "fdf bf97 c083 3fe4 4050 3eb1 c024 bf8c 3eca 3fee bf84 3eda c01e 4058 3ef8 c01c bf74 3f06 4000 405e "
            + "c075 c016 bf5f 40a0 4006 c0a7 3f26 c011 c086 c02c 404b 3e86 3fdf bf97 c083 3fe4 4050 3eb1 c024 bf8c"
            + " 3eca 3fee bf84 3eda c01e 4058 3ef8 c01c bf74 3f06 4000 405e c075 c016 bf5f 40a0 4006 c0a7 3f26 c01"
            + "1";
    private static final String GRAD_W = "bfloat16 c089 c089 c089 c089 c089 c089 c089 c089 c089 c089 c089 c089 c089 c089 c089 c089 3f9d 3f9d "
            + "3f9d 3f9d 3f9d 3f9d 3f9d 3f9d 3f9d 3f9d 3f9d 3f9d 3f9d 3f9d 3f9d 3f9d 3f52 3f52 3f52 3f52 3f52 3f52"
            + " 3f52 3f52 3f52 3f52 3f52 3f52 3f52 3f52 3f52 3f52 3ece 3ece 3ece 3ece 3ece 3ece 3ece 3ece 3ece 3ec"
            + "e 3ece 3ece 3ece 3ece 3ece 3ece 0000 0000 0000 0000 0000 0000 0000 0000 0000 0000 0000 0000 0000 00"
            + "00 0000 0000 bece bece bece bece bece bece bece bece bece bece bece bece bece bece bece bece bf52 b"
            + "f52 bf52 bf52 bf52 bf52 bf52 bf52 bf52 bf52 bf52 bf52 bf52 bf52 bf52 bf52 bf9d bf9d bf9d bf9d bf9d "
            + "bf9d bf9d bf9d bf9d bf9d bf9d bf9d bf9d bf9d bf9d bf9d 4089 4089 4089 4089 4089 4089 4089 4089 4089"
            + " 4089 4089 4089 4089 4089 4089 4089 c004 c004 c004 c004 c004 c004 c004 c004 c004 c004 c004 c004 c00"
            + "4 c004 c004 c004 c01e c01e c01e c01e c01e c01e c01e c01e c01e c01e c01e c01e c01e c01e c01e c01e c0"
            + "38 c038 c038 c038 c038 c038 c038 c038 c038 c038 c038 c038 c038 c038 c038 c038 c052 c052 c052 c052 c"
            + "052 c052 c052 c052 c052 c052 c052 c052 c052 c052 c052 c052 400f 400f 400f 400f 400f 400f 400f 400f "
            + "400f 400f 400f 400f 400f 400f 400f 400f c084 c084 c084 c084 c084 c084 c084 c084 c084 c084 c084 c084"
            + " c084 c084 c084 c084 3fb3 3fb3 3fb3 3fb3 3fb3 3fb3 3fb3 3fb3 3fb3 3fb3 3fb3 3fb3 3fb3 3fb3 3fb3 3fb"
            + "3 3f80 3f80 3f80 3f80 3f80 3f80 3f80 3f80 3f80 3f80 3f80 3f80 3f80 3f80 3f80 3f80 3f18 3f18 3f18 3f"
            + "18 3f18 3f18 3f18 3f18 3f18 3f18 3f18 3f18 3f18 3f18 3f18 3f18 3e3c 3e3c 3e3c 3e3c 3e3c 3e3c 3e3c 3"
            + "e3c 3e3c 3e3c 3e3c 3e3c 3e3c 3e3c 3e3c 3e3c be6e be6e be6e be6e be6e be6e be6e be6e be6e be6e be6e "
            + "be6e be6e be6e be6e be6e bf26 bf26 bf26 bf26 bf26 bf26 bf26 bf26 bf26 bf26 bf26 bf26 bf26 bf26 bf26"
            + " bf26 bf88 bf88 bf88 bf88 bf88 bf88 bf88 bf88 bf88 bf88 bf88 bf88 bf88 bf88 bf88 bf88 bfbd bfbd bfb"
            + "d bfbd bfbd bfbd bfbd bfbd bfbd bfbd bfbd bfbd bfbd bfbd bfbd bfbd bff2 bff2 bff2 bff2 bff2 bff2 bf"
            + "f2 bff2 bff2 bff2 bff2 bff2 bff2 bff2 bff2 bff2 406a 406a 406a 406a 406a 406a 406a 406a 406a 406a 4"
            + "06a 406a 406a 406a 406a 406a c02c c02c c02c c02c c02c c02c c02c c02c c02c c02c c02c c02c c02c c02c "
            + "c02c c02c 4035 4035 4035 4035 4035 4035 4035 4035 4035 4035 4035 4035 4035 4035 4035 4035 401a 401a"
            + " 401a 401a 401a 401a 401a 401a 401a 401a 401a 401a 401a 401a 401a 401a 3ffe 3ffe 3ffe 3ffe 3ffe 3ff"
            + "e 3ffe 3ffe 3ffe 3ffe 3ffe 3ffe 3ffe 3ffe 3ffe 3ffe 3fcb 3fcb 3fcb 3fcb 3fcb 3fcb 3fcb 3fcb 3fcb 3f"
            + "cb 3fcb 3fcb 3fcb 3fcb 3fcb 3fcb 3f98 3f98 3f98 3f98 3f98 3f98 3f98 3f98 3f98 3f98 3f98 3f98 3f98 3"
            + "f98 3f98 3f98 3f46 3f46 3f46 3f46 3f46 3f46 3f46 3f46 3f46 3f46 3f46 3f46 3f46 3f46 3f46 3f46";

    private final Mesh mesh = Mesh.makeMesh(new int[] {8}, "x");
    private final NDArray x = vals(8 * 32, 37, 17.0, 8, 32).astype(BF);
    private final NDArray w = vals(32 * 16, 53, 23.0, 32, 16).astype(BF);

    /** The script's {@code vals}: {@code float32((i * a % 101 - 50) / b)}. */
    private static NDArray vals(int n, int a, double b, int... shape) {
        float[] v = new float[n];
        for (int i = 0; i < n; i++) {
            v[i] = (float) ((i * a % 101 - 50) / b);
        }
        return NDArray.of(v).reshape(shape);
    }

    private static String bits(NDArray x) {
        StringBuilder sb = new StringBuilder(x.dtype().jaxName());
        for (float f : x.toFloatArray()) {
            int b = Float.floatToRawIntBits(f);
            sb.append(' ').append(x.dtype() == BF ? String.format("%04x", b >>> 16) : String.format("%08x", b));
        }
        return sb.toString();
    }

    private ShardedArray put(NDArray a, PartitionSpec spec) {
        return ShardedArray.devicePut(a, new NamedSharding(mesh, spec));
    }

    @Test
    void bfloat16OperandsGiveAnUnroundedFloat32ProductEagerAndUnderJit() {
        ShardedArray rows = put(x, P("x", null));
        ShardedArray wRep = put(w, P());
        ShardedArray eager = rows.matmul(wRep, F32);
        assertEquals(F32, eager.dtype());
        assertEquals(P("x", null), eager.spec().padTo(2));
        assertEquals(ROWS, bits(eager.gather()));
        assertEquals(ROWS, bits(Jit.jit((a, b) -> a.matmul(b, F32)).call(rows, wRep).get(0).gather()));
        assertEquals(ROWS, bits(ShardedArray.einsum("bd,df->bf", rows, wRep, F32).gather()));
        assertEquals(ROWS, bits(Jit.jit((a, b) -> ShardedArray.einsum("bd,df->bf", a, b, F32)).call(rows, wRep)
                .get(0).gather()));
        assertEquals(ROWS, bits(x.matmul(w, F32)), "the per-device NDArray.matmul agrees");
    }

    @Test
    void aSplitContractionAllReducesFloat32PartialSums() {
        ShardedArray cols = put(x, P(null, "x"));
        ShardedArray wRows = put(w, P("x", null));
        ShardedArray eager = cols.matmul(wRows, P(), F32);
        assertEquals(F32, eager.dtype());
        assertEquals(P(null, null), eager.spec().padTo(2));
        assertEquals(SPLIT, bits(eager.gather()));
        Compiled c = Jit.jit((a, b) -> a.matmul(b, P(), F32)).lower(cols, wRows);
        String text = c.asText();
        // XLA: %dot = f32[8,16] dot(bf16[8,4], bf16[4,16]); all-reduce = f32[8,16] over the 8 devices
        assertTrue(text.contains("f32[8,16] dot_general(") && text.contains("f32[8,16] all-reduce("), text);
        // the float32 partial sums cost 4 bytes an element: twice the bfloat16 product's all-reduce
        Compiled bf16 = Jit.jit((a, b) -> a.matmul(b, P())).lower(cols, wRows);
        assertTrue(bf16.asText().contains("bf16[8,16] all-reduce("), bf16.asText());
        assertEquals(2 * bf16.costAnalysis().bytesReceivedPerDevice(), c.costAnalysis().bytesReceivedPerDevice());
        assertTrue(c.costAnalysis().bytesReceivedPerDevice() > 0);
        assertEquals(SPLIT, bits(Jit.jit((a, b) -> a.matmul(b, P(), F32)).call(cols, wRows).get(0).gather()));
        assertEquals(SPLIT, bits(ShardedArray.einsum("bd,df->bf", cols, wRows, P(), F32).gather()));
    }

    @Test
    void theJaxprPrintsPreferredElementTypeAsJaxDoes() {
        ShardedArray rows = put(x, P("x", null));
        ShardedArray wRep = put(w, P());
        String with = Jit.jit((a, b) -> ShardedArray.einsum("bd,df->bf", a, b, F32)).lower(rows, wRep).jaxpr()
                .toString();
        assertTrue(with.contains("""
                    c:f32[8@x,16] = dot_general[
                      dimension_numbers=(([1], [0]), ([], []))
                      preferred_element_type=float32
                    ] a b
                """), with);
        String without = Jit.jit((a, b) -> a.matmul(b)).lower(rows, wRep).jaxpr().toString();
        assertTrue(without.contains("    c:bf16[8@x,16] = dot_general a b\n"), "unchanged without the parameter: "
                + without);
    }

    @Test
    void cotangentsContractInFloat32AndConvertToTheOperandsDType() {
        ShardedArray rows = put(x, P("x", null));
        ShardedArray wRep = put(w, P());
        var grad = Autodiff.<ShardedArray>gradList(v -> ShardedArray.einsum("bd,df->bf", v.get(0), v.get(1), F32)
                .sum(), 0, 1);
        List<ShardedArray> g = Jit.jitList(grad).call(rows, wRep);
        assertEquals(P("x", null), g.get(0).spec().padTo(2));
        assertEquals(P(null, null), g.get(1).spec().padTo(2));
        assertEquals(GRAD_X, bits(g.get(0).gather()));
        assertEquals(GRAD_W, bits(g.get(1).gather()));
        List<ShardedArray> eager = grad.apply(List.of(rows, wRep));
        assertEquals(GRAD_X, bits(eager.get(0).gather()));
        assertEquals(GRAD_W, bits(eager.get(1).gather()));
        String jaxpr = Jit.jitList(grad).lower(rows, wRep).jaxpr().toString();
        // JAX's lines for X's cotangent; W's is the swapped contraction (DotGeneral#vjp), then the same convert
        assertTrue(jaxpr.contains("""
                = dot_general[
                      dimension_numbers=(([1], [1]), ([], []))
                      preferred_element_type=float32
                    ]""") && jaxpr.contains(":bf16[8@x,32] = convert_element_type"), jaxpr);
    }

    @Test
    void narrowingAnIntegralResultIsJaxsError() {
        ShardedArray i = put(NDArray.of(new float[] {1, 2, 3, 4}).reshape(2, 2).astype(DType.INT32), P());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> i.matmul(i, DType.BOOL));
        assertEquals("`preferred_element_type` must not be narrower than the original type, got"
                + " preferred_element_type of bool for result type of int32.", e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> put(x.astype(F32), P()).matmul(put(w, P()), BF),
                "float32 to bfloat16 is not computed here");
    }
}
