package dev.shardlings.array;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Set;
import org.junit.jupiter.api.Test;

/** Goldens printed by numpy 2.4 ({@code str(np.array(..., dtype=np.float32 / np.int32))}). */
class NDArrayPrintTest {
    private static final float NAN = Float.NaN;
    private static final float INF = Float.POSITIVE_INFINITY;

    @Test
    void contractExamples() {
        assertEquals("[3 1 4 1]", NDArray.of(3, 1, 4, 1).toString());
        assertEquals("[[0 1]\n [4 5]]", NDArray.of(new int[][] {{0, 1}, {4, 5}}).toString());
        assertEquals("[0. 1.]", NDArray.of(0f, 1f).toString());
        assertEquals("[5.5  5.   3.   4.25]", NDArray.of(5.5f, 5f, 3f, 4.25f).toString());
        assertEquals("[[0. 1.]\n [4. 5.]]", NDArray.of(new float[][] {{0, 1}, {4, 5}}).toString());
        assertEquals("5.5", NDArray.scalar(5.5f).toString());
        assertEquals("22", NDArray.scalar(22).toString());
    }

    @Test
    void integers() {
        assertEquals("[[-10   2]\n [  3 400]]", NDArray.of(new int[][] {{-10, 2}, {3, 400}}).toString());
        assertEquals("[[0]\n [1]\n [2]]", NDArray.arange(3).reshape(3, 1).toString());
        assertEquals("-2147483648", NDArray.scalar(Integer.MIN_VALUE).toString());
        assertEquals("[[ 0  1  2  3]\n [ 4  5  6  7]\n [ 8  9 10 11]\n [12 13 14 15]\n [16 17 18 19]\n"
                + " [20 21 22 23]\n [24 25 26 27]\n [28 29 30 31]]", NDArray.arange(32).reshape(8, 4).toString());
    }

    @Test
    void floatsPositional() {
        assertEquals("[0.33333334 0.6666667  1.        ]", NDArray.of(1f / 3, 2f / 3, 1f).toString());
        assertEquals("[ 0.1  0.2 -0.3]", NDArray.of(0.1f, 0.2f, -0.3f).toString());
        assertEquals("[-0.   1.5]", NDArray.of(-0f, 1.5f).toString());
        assertEquals("[0. 0. 0.]", NDArray.zeros(DType.FLOAT32, 3).toString());
        assertEquals("[0.00012345 0.1       ]", NDArray.of(0.00012345f, 0.1f).toString());
        assertEquals("[[[ 0.  1.  2.]\n  [ 3.  4.  5.]]\n\n [[ 6.  7.  8.]\n  [ 9. 10. 11.]]]",
                NDArray.arange(12, DType.FLOAT32).reshape(2, 2, 3).toString());
    }

    @Test
    void floatsScientific() {
        assertEquals("[1.e-05 1.e+00]", NDArray.of(1e-5f, 1f).toString());
        assertEquals("[1.2345e+20 1.0000e+00]", NDArray.of(1.2345e20f, 1f).toString());
        assertEquals("[1.e-03 2.e+00]", NDArray.of(0.001f, 2f).toString());
        assertEquals("[1.e+08 5.e+00]", NDArray.of(1e8f, 5f).toString());
        assertEquals("[1.2345678e+07 5.0000000e-01]", NDArray.of(12345678f, 0.5f).toString());
        assertEquals("[1.2345678e+05 1.0000000e-03]", NDArray.of(123456.78f, 0.001f).toString());
        assertEquals("[-1.5e-07  3.0e+10]", NDArray.of(-1.5e-7f, 3e10f).toString());
        // numpy >= 2.3: float32 arrays switch to scientific at 1e6 (10^finfo(float32).precision)
        assertEquals("[1.e+06 1.e+00]", NDArray.of(1e6f, 1f).toString());
        assertEquals("[9.99999e+05 1.00000e+00]", NDArray.of(999999f, 1f).toString());
        assertEquals("[5.9864850e+06 3.0617605e+06]", NDArray.of(5986485f, 3061760.5f).toString());
        // every element gets as many digits as the longest shortest repr, from its exact value
        assertEquals("[ 1.5235294e-06 -4.2799999e-07]", NDArray.of(1.52352936e-06f, -4.28e-07f).toString());
        assertEquals("[1.e-45 1.e+00]", NDArray.of(1e-45f, 1f).toString());
        assertEquals("[ 3.4028235e+38 -1.0000000e+00]", NDArray.of(Float.MAX_VALUE, -1f).toString());
    }

    @Test
    void nonFinite() {
        assertEquals("[nan  1. inf]", NDArray.of(NAN, 1f, INF).toString());
        assertEquals("[ nan -inf  2.5]", NDArray.of(NAN, -INF, 2.5f).toString());
        assertEquals("[nan inf]", NDArray.of(NAN, INF).toString());
        assertEquals("[ 1.e-06     nan -2.e+00]", NDArray.of(1e-6f, NAN, -2f).toString());
    }

    @Test
    void scalarsPrintLikeNumpyScalars() {
        assertEquals("5.0", NDArray.scalar(5f).toString());
        assertEquals("1e-05", NDArray.scalar(1e-5f).toString());
        assertEquals("1e+16", NDArray.scalar(1e16f).toString());
        assertEquals("1e-04", NDArray.scalar(1e-4f).toString());
        assertEquals("nan", NDArray.scalar(NAN).toString());
        assertEquals("-inf", NDArray.scalar(-INF).toString());
        assertEquals("-0.0", NDArray.scalar(-0f).toString());
        assertEquals("0.33333334", NDArray.scalar(1f / 3).toString());
        assertEquals("1.5e+15", NDArray.scalar(1.5e15f).toString());
        assertEquals("1e+06", NDArray.scalar(1e6f).toString());
        assertEquals("-999999.0", NDArray.scalar(-999999f).toString());
        assertEquals("999999.94", NDArray.scalar(999999.94f).toString());
        assertEquals("0.00010000001", NDArray.scalar(1.0000001e-4f).toString());
        assertEquals("1.234567e+06", NDArray.scalar(1234567f).toString());
    }

    @Test
    void emptyArrays() {
        assertEquals("[]", NDArray.zeros(DType.FLOAT32, 0).toString());
        assertEquals("[]", NDArray.zeros(DType.INT32, 2, 0).toString());
    }

    @Test
    void longLinesWrapAt75Characters() {
        assertEquals("[    0  1000  2000  3000  4000  5000  6000  7000  8000  9000 10000 11000\n"
                + " 12000 13000 14000 15000 16000 17000 18000 19000 20000 21000 22000 23000\n"
                + " 24000 25000 26000 27000 28000 29000 30000 31000 32000 33000 34000 35000\n"
                + " 36000 37000 38000 39000]", NDArray.arange(40).mul(1000).toString());
        assertEquals("[0.         0.14285715 0.2857143  0.42857143 0.5714286  0.71428573\n"
                + " 0.85714287 1.         1.1428572  1.2857143  1.4285715  1.5714285\n"
                + " 1.7142857  1.8571428  2.         2.142857   2.2857144  2.4285715\n"
                + " 2.5714285  2.7142856  2.857143   3.         3.142857   3.2857144\n"
                + " 3.4285715  3.5714285  3.7142856  3.857143   4.         4.142857  ]",
                NDArray.arange(30, DType.FLOAT32).div(7f).toString());
    }

    @Test
    void moreThan1000ElementsAreSummarised() {
        assertEquals("[   0    1    2 ... 1997 1998 1999]", NDArray.arange(2000).toString());
        assertEquals("[[0.000e+00 1.000e+00 2.000e+00 ... 4.700e+01 4.800e+01 4.900e+01]\n"
                + " [5.000e+01 5.100e+01 5.200e+01 ... 9.700e+01 9.800e+01 9.900e+01]\n"
                + " [1.000e+02 1.010e+02 1.020e+02 ... 1.470e+02 1.480e+02 1.490e+02]\n"
                + " ...\n"
                + " [1.850e+03 1.851e+03 1.852e+03 ... 1.897e+03 1.898e+03 1.899e+03]\n"
                + " [1.900e+03 1.901e+03 1.902e+03 ... 1.947e+03 1.948e+03 1.949e+03]\n"
                + " [1.950e+03 1.951e+03 1.952e+03 ... 1.997e+03 1.998e+03 1.999e+03]]",
                NDArray.arange(2000, DType.FLOAT32).reshape(40, 50).toString());
        String s = NDArray.arange(3000).reshape(10, 10, 30).toString();
        assertEquals("[[[   0    1    2 ...   27   28   29]\n  [  30   31   32 ...   57   58   59]\n", s.substring(0,
                s.indexOf("  [  60")));
        assertEquals("  [2970 2971 2972 ... 2997 2998 2999]]]", s.substring(s.lastIndexOf('\n') + 1));
        assertEquals(" ...\n\n [[2100 210", s.substring(s.indexOf(" ...\n\n"), s.indexOf(" ...\n\n") + 17));
        assertEquals(43, s.split("\n").length - countBlank(s));
    }

    private static int countBlank(String s) {
        int n = 0;
        for (String line : s.split("\n")) {
            if (line.isEmpty()) {
                n++;
            }
        }
        return n;
    }

    @Test
    void describeIsJaxsShortTypeString() {
        assertEquals("f32[8,4]", NDArray.zeros(DType.FLOAT32, 8, 4).describe());
        assertEquals("i32[]", NDArray.scalar(1).describe());
        assertEquals("i32[0]", NDArray.arange(0).describe());
        assertEquals("f32[2,2]{V:x,y}", NDArray.zeros(DType.FLOAT32, 2, 2).pvary("x", "y").describe());
        assertEquals("f32[2]{V:y,x}", NDArray.zeros(DType.FLOAT32, 2).pvary("y").pvary("x").describe());
        assertEquals("f32[2]", NDArray.zeros(DType.FLOAT32, 2).withVaryingAxes(Set.of()).describe());
    }
}
