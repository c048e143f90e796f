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
    private static final String ROWS =
            "float32"
            + " 413c7f34 c1031ef0 bfca1c60 c1068ac0 41371a5e 4024bc30 bfd5bfd8 40a050ac bfe99f60 401dfa00 c0edd6aa"
            + " 40106178 412be28e 414776cc 3e413500 c10acade c0dd9c78 3f213080 c0b62b18 3f1f84c0 4046362c 3dba5000"
            + " c02796c4 c1100042 c029c01c 41259c89 415a2cbc 41254fe8 c0b7b500 3fecb8d0 c10db4ec 4028b0a0 bf9ba128"
            + " 40fd91ac 416bcd08 410144a6 c0da1946 c07bb3fc c0a235d4 3fd2f5f0 c09e87ec c1147b87 40e11960 c111aa59"
            + " 4011aef0 c1249b50 40d19f64 41459a64 bfccff90 c0964250 3fc71ca0 c0b57960 3f142a40 c089fe20 41058f3c"
            + " 416a12b8 40ecb442 bfef1e70 c142b13e c0349578 c0656480 40098208 40dac908 c0dbaba8 c10c2662 4057a228"
            + " c17c5e24 4074ac68 40cdaa10 41a90ab6 c04c83d8 40717b48 c02b31f8 41273714 3f6d4b80 412ee360 bf2782e0"
            + " bfb80220 c0f5b9e4 c1565600 c0810bc2 41199518 40674e0c 41248d48 c0905978 c1206e00 c0d4ffa8 c14b3348"
            + " c0c13d36 c1230cdd 419b2bee c1190b86 40ca3c78 c16a2592 40d73900 c0947254 c0aebbe6 c0807910 4177e202"
            + " c09026e0 3fe863e0 c136dcd0 40b86e14 bf46ff80 40a94df0 c075ce70 bf655dc0 c08a583e bf0f9730 c0507890"
            + " 40be12f8 3f9d16c0 3ff24e10 40997640 c16b5f1c 408fe016 c0ce09b4 4143e4d4 409a7344 41364486 409116f2"
            + " 4081f376 c0bbfda0 406f9940 4110aabc 4143dbda c047aa1e c15a46fe";
    /** The script's {@code split} and {@code split_jit}: X[B, D_x] · W[D_x, F] with out_sharding P(). */
    private static final String SPLIT =
            "float32"
            + " 413c7f34 c1031ef0 bfca1c60 c1068ac0 41371a5e 4024bc30 bfd5bfd8 40a050ac bfe99f60 401dfa00 c0edd6aa"
            + " 40106178 412be28e 414776cc 3e413500 c10acade c0dd9c78 3f213090 c0b62b18 3f1f84c0 4046362c 3dba5000"
            + " c02796c4 c1100042 c029c01c 41259c89 415a2cbc 41254fe8 c0b7b500 3fecb8d0 c10db4ec 4028b0a0 bf9ba128"
            + " 40fd91ac 416bcd08 410144a6 c0da1946 c07bb3fc c0a235d4 3fd2f5f0 c09e87ec c1147b87 40e11960 c111aa59"
            + " 4011aef0 c1249b50 40d19f64 41459a64 bfccff90 c0964250 3fc71ca0 c0b57960 3f142a40 c089fe20 41058f3c"
            + " 416a12b8 40ecb442 bfef1e70 c142b13e c0349578 c0656480 40098208 40dac908 c0dbaba8 c10c2662 4057a224"
            + " c17c5e23 4074ac68 40cdaa10 41a90ab4 c04c83d8 40717b48 c02b31f8 41273714 3f6d4b80 412ee360 bf2782e0"
            + " bfb80220 c0f5b9e4 c1565600 c0810bc2 41199518 40674e0c 41248d48 c0905978 c1206e00 c0d4ffa8 c14b3348"
            + " c0c13d36 c1230cdd 419b2bee c1190b86 40ca3c78 c16a2592 40d73900 c0947254 c0aebbe6 c0807910 4177e202"
            + " c09026e0 3fe863d8 c136dcd0 40b86e14 bf46ff80 40a94df0 c075ce70 bf655dc0 c08a583e bf0f9730 c0507890"
            + " 40be12f8 3f9d16c0 3ff24e10 40997640 c16b5f1c 408fe016 c0ce09b4 4143e4d4 409a7344 41364486 409116f2"
            + " 4081f376 c0bbfda0 406f9940 4110aabc 4143dbda c047aa1e c15a46fe";
    /** The script's {@code batched}: einsum bij,bjk->bik of X[8_x, 4, 8] and W[8_x, 8, 8], both bfloat16. */
    private static final String BATCHED =
            "float32"
            + " 414099dc 40982a00 40160ea0 407870d0 3fba3a68 c0a25098 3f0ca740 c0befee4 bdfde000 40836430 c0ed5740"
            + " 40738cc0 c0f89080 bf6f5500 c10165a0 bfa231c0 4050a450 c0e38f50 bfd722e0 c0dc0540 bfb95628 c0ed7b00"
            + " bf9a7d40 c0e56220 c0810afc c0368de0 c0d25936 c0039000 c0b82a94 3fcddc00 c09db55a 401cb4e0 c083bdb0"
            + " c09389a9 401d6e60 c08fda18 40216fe0 40664798 40289300 406ba5a0 c0cd1912 c067cfb8 404562fc c0873c04"
            + " 401b8c60 409ee91c 3fe8df00 408acd6c bf9d2e40 c0f0a9e0 4147c378 c0f23120 41469ff0 407f2340 41461040"
            + " 407bb780 c0d23930 40809d98 4134c558 4091bd98 413cea36 c0f0cc08 41458888 c0dfa110 4099d480 413af0d8"
            + " c0c69780 4137b6c0 c0cc6280 41350b24 c0d263a8 bf80f9c0 40cf9910 3f1e7940 c00b3f20 3f7f9140 bfe3f2e0"
            + " 3fb5ba28 bfb22bf8 c0d65434 40d3ccc8 3ebda0c0 bf720440 3d09ba00 bfa13f24 be81bc00 bfcbae37 c0afee18"
            + " 4108c620 c1272c28 40587140 c1233c90 40688d90 c11f2158 407858ac c12fb5f0 c133936c 4080e8ae c14ba658"
            + " 40644758 c11d0528 40468090 c1249268 41098484 c0bc354c bfc5ca98 c09fdaf8 bfb6f030 3ea2e500 bfaadba0"
            + " 3edb3800 40d1e8d8 c0df1f00 bf960420 c09f9e80 bfe32e80 3fb26b80 c01938c0 3f4a1a00 40d243a0 bfa9dcd0"
            + " c0d091d8 4042ad10 c0d14d98 413c7690 c0d323a0 413c2430 4099c0a0 408a1e20 413af838 409ada80 4144223c"
            + " c0f04600 414ceebc c0ddf950 c03be708 4074c480 414a1fe0 4068aec0 4147cb78 c0f4cb20 41451100 c0f95428"
            + " befd8200 40835968 3ffee860 408fd8bc 4018908c c08d9b34 4032ec70 c0800744 c0bb2e38 40661e18 403a1780"
            + " 4051aad0 40255340 c0906118 4011ae80 c0999621 c05d0d60 c0e51360 bf79e040 c0dc6080 bf36e210 c10700a0"
            + " bee25200 c102cb30 be362200 c0e23c50 bf9ff510 c0f06c00 bfda6130 c0c51780 c0099758 c0d384a0 c0260970"
            + " bfab1750 c10352e8 bf9bc800 c1014be4 408ac740 c0fe11d0 408f2548 c0f9b3be c0c4541c 3e8db000 c0aea0a4"
            + " 3f7b7080 408a08cc 3fda2880 40a0af9a 40187c98 3bc3d000 40d33e70 bcd61000 40d1a6c0 41312b50 40d12f00"
            + " 3ef9a600 40d18cf8 bf8d7a00 410c1360 bfece140 40ffb320 41250ce8 40e842e0 3f4ceb00 40d1c6e8 4105a798"
            + " 41111720 410311a0 410e1898 c05639c0 410b8ca0 c1276020 410971a0 40e6a4b0 bf9fce00 40f410c0 bf4da600"
            + " bfbdb440 bec2a900 c0c79548 3ce30000 3f0b7a00 c0b5cc20 3e738600 c0beaff4 bcb58800 c0c89ad3 bf8bf140"
            + " c0d18048 c10c02b6 bfd4de80 c107ab5c bfafa870 c1031760 bf8cf0a4 c0dc01b0 bf51ebc0 c0f03dc0 bf3dad40"
            + " c0fea384 bf9435e0 c1060d29 bfcd7370 c0beec02 c002a268 bfacadf0 c0e9cae0 bf990c60 c0e5a140 bf88c6c0"
            + " c0e08b60 406f8a60 c0dc8d20";
    private static final String GRAD_X =
            "bfloat16"
            + " c086 c02c 404b 3e86 3fdf bf97 c083 3fe4 4050 3eb1 c024"
            + " bf8c 3eca 3fee bf84 3eda c01e 4058 3ef8 c01c bf74 3f06"
            + " 4000 405e c075 c016 bf5f 40a0 4006 c0a7 3f26 c011 c086"
            + " c02c 404b 3e86 3fdf bf97 c083 3fe4 4050 3eb1 c024 bf8c"
            + " 3eca 3fee bf84 3eda c01e 4058 3ef8 c01c bf74 3f06 4000"
            + " 405e c075 c016 bf5f 40a0 4006 c0a7 3f26 c011 c086 c02c"
            + " 404b 3e86 3fdf bf97 c083 3fe4 4050 3eb1 c024 bf8c 3eca"
            + " 3fee bf84 3eda c01e 4058 3ef8 c01c bf74 3f06 4000 405e"
            + " c075 c016 bf5f 40a0 4006 c0a7 3f26 c011 c086 c02c 404b"
            + " 3e86 3fdf bf97 c083 3fe4 4050 3eb1 c024 bf8c 3eca 3fee"
            + " bf84 3eda c01e 4058 3ef8 c01c bf74 3f06 4000 405e c075"
            + " c016 bf5f 40a0 4006 c0a7 3f26 c011 c086 c02c 404b 3e86"
            + " 3fdf bf97 c083 3fe4 4050 3eb1 c024 bf8c 3eca 3fee bf84"
            + " 3eda c01e 4058 3ef8 c01c bf74 3f06 4000 405e c075 c016"
            + " bf5f 40a0 4006 c0a7 3f26 c011 c086 c02c 404b 3e86 3fdf"
            + " bf97 c083 3fe4 4050 3eb1 c024 bf8c 3eca 3fee bf84 3eda"
            + " c01e 4058 3ef8 c01c bf74 3f06 4000 405e c075 c016 bf5f"
            + " 40a0 4006 c0a7 3f26 c011 c086 c02c 404b 3e86 3fdf bf97"
            + " c083 3fe4 4050 3eb1 c024 bf8c 3eca 3fee bf84 3eda c01e"
            + " 4058 3ef8 c01c bf74 3f06 4000 405e c075 c016 bf5f 40a0"
            + " 4006 c0a7 3f26 c011 c086 c02c 404b 3e86 3fdf bf97 c083"
            + " 3fe4 4050 3eb1 c024 bf8c 3eca 3fee bf84 3eda c01e 4058"
            + " 3ef8 c01c bf74 3f06 4000 405e c075 c016 bf5f 40a0 4006"
            + " c0a7 3f26 c011";
    private static final String GRAD_W =
            "bfloat16"
            + " c089 c089 c089 c089 c089 c089 c089 c089 c089 c089 c089"
            + " c089 c089 c089 c089 c089 3f9d 3f9d 3f9d 3f9d 3f9d 3f9d"
            + " 3f9d 3f9d 3f9d 3f9d 3f9d 3f9d 3f9d 3f9d 3f9d 3f9d 3f52"
            + " 3f52 3f52 3f52 3f52 3f52 3f52 3f52 3f52 3f52 3f52 3f52"
            + " 3f52 3f52 3f52 3f52 3ece 3ece 3ece 3ece 3ece 3ece 3ece"
            + " 3ece 3ece 3ece 3ece 3ece 3ece 3ece 3ece 3ece 0000 0000"
            + " 0000 0000 0000 0000 0000 0000 0000 0000 0000 0000 0000"
            + " 0000 0000 0000 bece bece bece bece bece bece bece bece"
            + " bece bece bece bece bece bece bece bece bf52 bf52 bf52"
            + " bf52 bf52 bf52 bf52 bf52 bf52 bf52 bf52 bf52 bf52 bf52"
            + " bf52 bf52 bf9d bf9d bf9d bf9d bf9d bf9d bf9d bf9d bf9d"
            + " bf9d bf9d bf9d bf9d bf9d bf9d bf9d 4089 4089 4089 4089"
            + " 4089 4089 4089 4089 4089 4089 4089 4089 4089 4089 4089"
            + " 4089 c004 c004 c004 c004 c004 c004 c004 c004 c004 c004"
            + " c004 c004 c004 c004 c004 c004 c01e c01e c01e c01e c01e"
            + " c01e c01e c01e c01e c01e c01e c01e c01e c01e c01e c01e"
            + " c038 c038 c038 c038 c038 c038 c038 c038 c038 c038 c038"
            + " c038 c038 c038 c038 c038 c052 c052 c052 c052 c052 c052"
            + " c052 c052 c052 c052 c052 c052 c052 c052 c052 c052 400f"
            + " 400f 400f 400f 400f 400f 400f 400f 400f 400f 400f 400f"
            + " 400f 400f 400f 400f c084 c084 c084 c084 c084 c084 c084"
            + " c084 c084 c084 c084 c084 c084 c084 c084 c084 3fb3 3fb3"
            + " 3fb3 3fb3 3fb3 3fb3 3fb3 3fb3 3fb3 3fb3 3fb3 3fb3 3fb3"
            + " 3fb3 3fb3 3fb3 3f80 3f80 3f80 3f80 3f80 3f80 3f80 3f80"
            + " 3f80 3f80 3f80 3f80 3f80 3f80 3f80 3f80 3f18 3f18 3f18"
            + " 3f18 3f18 3f18 3f18 3f18 3f18 3f18 3f18 3f18 3f18 3f18"
            + " 3f18 3f18 3e3c 3e3c 3e3c 3e3c 3e3c 3e3c 3e3c 3e3c 3e3c"
            + " 3e3c 3e3c 3e3c 3e3c 3e3c 3e3c 3e3c be6e be6e be6e be6e"
            + " be6e be6e be6e be6e be6e be6e be6e be6e be6e be6e be6e"
            + " be6e bf26 bf26 bf26 bf26 bf26 bf26 bf26 bf26 bf26 bf26"
            + " bf26 bf26 bf26 bf26 bf26 bf26 bf88 bf88 bf88 bf88 bf88"
            + " bf88 bf88 bf88 bf88 bf88 bf88 bf88 bf88 bf88 bf88 bf88"
            + " bfbd bfbd bfbd bfbd bfbd bfbd bfbd bfbd bfbd bfbd bfbd"
            + " bfbd bfbd bfbd bfbd bfbd bff2 bff2 bff2 bff2 bff2 bff2"
            + " bff2 bff2 bff2 bff2 bff2 bff2 bff2 bff2 bff2 bff2 406a"
            + " 406a 406a 406a 406a 406a 406a 406a 406a 406a 406a 406a"
            + " 406a 406a 406a 406a c02c c02c c02c c02c c02c c02c c02c"
            + " c02c c02c c02c c02c c02c c02c c02c c02c c02c 4035 4035"
            + " 4035 4035 4035 4035 4035 4035 4035 4035 4035 4035 4035"
            + " 4035 4035 4035 401a 401a 401a 401a 401a 401a 401a 401a"
            + " 401a 401a 401a 401a 401a 401a 401a 401a 3ffe 3ffe 3ffe"
            + " 3ffe 3ffe 3ffe 3ffe 3ffe 3ffe 3ffe 3ffe 3ffe 3ffe 3ffe"
            + " 3ffe 3ffe 3fcb 3fcb 3fcb 3fcb 3fcb 3fcb 3fcb 3fcb 3fcb"
            + " 3fcb 3fcb 3fcb 3fcb 3fcb 3fcb 3fcb 3f98 3f98 3f98 3f98"
            + " 3f98 3f98 3f98 3f98 3f98 3f98 3f98 3f98 3f98 3f98 3f98"
            + " 3f98 3f46 3f46 3f46 3f46 3f46 3f46 3f46 3f46 3f46 3f46"
            + " 3f46 3f46 3f46 3f46 3f46 3f46";

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

    /**
     * Not bit for bit: for these [4, 8] · [8, 8] products XLA:CPU's bfloat16 kernel adds the 8 products in another
     * order than the framework's float32 kernel (3 of the 256 sums differ in the last bit; the K = 32 products above
     * agree bit for bit). Each product is accumulated in float32 and not rounded to bfloat16.
     */
    @Test
    void aSplitBatchDimensionAccumulatesEachProductInFloat32() {
        ShardedArray a = put(x.reshape(8, 4, 8), P("x", null, null));
        ShardedArray b = put(w.reshape(8, 8, 8), P("x", null, null));
        ShardedArray out = ShardedArray.einsum("bij,bjk->bik", a, b, F32);
        assertEquals(F32, out.dtype());
        assertEquals(P("x", null, null), out.spec().padTo(3));
        String[] jax = BATCHED.split(" ");
        float[] got = out.gather().toFloatArray();
        int differing = 0;
        for (int i = 0; i < got.length; i++) {
            float want = Float.intBitsToFloat(Integer.parseUnsignedInt(jax[i + 1], 16));
            assertTrue(Math.abs(got[i] - want) <= Math.ulp(want), i + ": " + got[i] + " vs JAX's " + want);
            differing += got[i] == want ? 0 : 1;
        }
        assertTrue(differing <= 3, differing + " sums differ from JAX's in the last bit");
        assertEquals(bits(out.gather()), bits(Jit.jit((p, q) -> ShardedArray.einsum("bij,bjk->bik", p, q, F32))
                .call(a, b).get(0).gather()), "jit and eager agree");
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
