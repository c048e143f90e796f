package dev.shardlings.array;

import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.List;

/**
 * numpy's {@code str(ndarray)} with the default print options (precision 8, floatmode 'maxprec',
 * threshold 1000, edgeitems 3, linewidth 75), ported from numpy 2.4's {@code arrayprint.py}
 * ({@code _formatArray}, {@code _extendLine}, {@code FloatingFormat}, {@code IntegerFormat}) and the scalar
 * {@code str(np.float32)} rules of {@code scalartypes.c}.
 *
 * <p>Shortest round-tripping digits are found with {@link BigDecimal} (fewest significant digits p in 1..9
 * whose HALF_EVEN rounding of the exact value parses back to the same float) instead of
 * {@link Float#toString(float)}, whose output changed between JDK 17 and JDK 19+. This matches numpy's
 * Dragon4 except, possibly, for rare values just above a power of two where Dragon4 may pick a different
 * shortest candidate (best effort).
 */
final class ArrayPrinter {
    static final int THRESHOLD = 1000;
    static final int EDGE_ITEMS = 3;
    static final int LINE_WIDTH = 75;
    static final int PRECISION = 8;

    private final int[] shape;
    private final int[] strides;
    private final float[] f;
    private final int[] ints;
    private final boolean summarize;
    private ElementFormat format;

    private ArrayPrinter(int[] shape, float[] f, int[] ints) {
        this.shape = shape;
        this.strides = Shapes.strides(shape);
        this.f = f;
        this.ints = ints;
        this.summarize = Shapes.size(shape) > THRESHOLD;
    }

    /**
     * Formats an array; with {@code bool}, ints holds 0/1 and prints as numpy prints a bool array: {@code True}
     * and {@code False}, each element five wide ({@code [ True False]}).
     */
    static String format(int[] shape, float[] f, int[] ints, boolean bool) {
        if (bool) {
            if (shape.length == 0) {
                return ints[0] != 0 ? "True" : "False";
            }
            if (Shapes.size(shape) == 0) {
                return "[]";
            }
            ArrayPrinter p = new ArrayPrinter(shape, null, ints);
            p.format = offset -> ints[offset] != 0 ? " True" : "False";
            return p.recurse(0, 0, " ", LINE_WIDTH);
        }
        if (shape.length == 0) {
            return f != null ? scalarString(f[0]) : Integer.toString(ints[0]);
        }
        if (Shapes.size(shape) == 0) {
            return "[]";
        }
        ArrayPrinter p = new ArrayPrinter(shape, f, ints);
        List<Integer> shown = new ArrayList<>();
        p.collectShown(0, 0, shown);
        p.format = f != null ? FloatFormat.of(f, shown) : IntFormat.of(ints, shown);
        // numpy: next_line_prefix is one space (the width of the opening bracket), line width 75
        return p.recurse(0, 0, " ", LINE_WIDTH);
    }

    /**
     * A bfloat16 array as numpy prints it: ml_dtypes' bfloat16 is not one of numpy's float types, so each element
     * is its own {@code str} (C's {@code %.6g}: {@code 0.100098}, {@code 9.99922e+09}, {@code -0}, {@code nan}),
     * unpadded; lines wrap and summarise as for any array ({@code [1 2.5 0.100098]}, {@code [[1 2.5]\n [300 0.1]]}).
     */
    static String formatBFloat16(int[] shape, float[] f) {
        if (shape.length == 0) {
            return general6(f[0]);
        }
        if (Shapes.size(shape) == 0) {
            return "[]";
        }
        ArrayPrinter p = new ArrayPrinter(shape, f, null);
        p.format = offset -> general6(f[offset]);
        return p.recurse(0, 0, " ", LINE_WIDTH);
    }

    /** C's {@code printf("%.6g", v)}: 6 significant digits (ties to even on the exact value), zeros dropped. */
    static String general6(float v) {
        if (Float.isNaN(v)) {
            return "nan";
        }
        if (Float.isInfinite(v)) {
            return v > 0 ? "inf" : "-inf";
        }
        if (v == 0f) {
            return isNegative(v) ? "-0" : "0";
        }
        BigDecimal d = new BigDecimal(v).round(new MathContext(6, RoundingMode.HALF_EVEN));
        int exponent = d.precision() - d.scale() - 1; // of the rounded value, as %g decides the style from it
        if (exponent < -4 || exponent >= 6) {
            String digits = d.unscaledValue().abs().toString().replaceFirst("0+$", "");
            String mantissa = digits.length() == 1 ? digits : digits.charAt(0) + "." + digits.substring(1);
            int e = Math.abs(exponent);
            return (v < 0 ? "-" : "") + mantissa + "e" + (exponent < 0 ? "-" : "+") + (e < 10 ? "0" : "") + e;
        }
        return d.stripTrailingZeros().toPlainString();
    }

    /** Flat offsets of the elements that will be printed (numpy formats widths over these only). */
    private void collectShown(int axis, int offset, List<Integer> out) {
        if (axis == shape.length) {
            out.add(offset);
            return;
        }
        int len = shape[axis];
        boolean summary = summarize && 2 * EDGE_ITEMS < len;
        for (int i = 0; i < len; i++) {
            if (summary && i == EDGE_ITEMS) {
                i = len - EDGE_ITEMS;
            }
            collectShown(axis + 1, offset + i * strides[axis], out);
        }
    }

    private String recurse(int axis, int offset, String hanging, int currWidth) {
        if (axis == shape.length) {
            return format.format(offset);
        }
        String nextHanging = hanging + " ";
        int nextWidth = currWidth - 1; // len(']')
        int len = shape[axis];
        boolean summary = summarize && 2 * EDGE_ITEMS < len;
        int leading = summary ? EDGE_ITEMS : 0;
        int trailing = summary ? EDGE_ITEMS : len;
        int axesLeft = shape.length - axis;
        StringBuilder s = new StringBuilder();
        if (axesLeft == 1) {
            int elemWidth = currWidth - 1; // max(len(separator.rstrip()), len(']'))
            String line = hanging;
            for (int i = 0; i < leading; i++) {
                String word = recurse(axis + 1, offset + i * strides[axis], nextHanging, nextWidth);
                line = extendLine(s, line, word, elemWidth, hanging) + " ";
            }
            if (summary) {
                line = extendLine(s, line, "...", elemWidth, hanging) + " ";
            }
            for (int i = trailing; i > 1; i--) {
                String word = recurse(axis + 1, offset + (len - i) * strides[axis], nextHanging, nextWidth);
                line = extendLine(s, line, word, elemWidth, hanging) + " ";
            }
            String word = recurse(axis + 1, offset + (len - 1) * strides[axis], nextHanging, nextWidth);
            line = extendLine(s, line, word, elemWidth, hanging);
            s.append(line);
        } else {
            String lineSep = "\n".repeat(axesLeft - 1);
            for (int i = 0; i < leading; i++) {
                s.append(hanging).append(recurse(axis + 1, offset + i * strides[axis], nextHanging, nextWidth))
                        .append(lineSep);
            }
            if (summary) {
                s.append(hanging).append("...").append(lineSep);
            }
            for (int i = trailing; i > 1; i--) {
                s.append(hanging)
                        .append(recurse(axis + 1, offset + (len - i) * strides[axis], nextHanging, nextWidth))
                        .append(lineSep);
            }
            s.append(hanging).append(recurse(axis + 1, offset + (len - 1) * strides[axis], nextHanging, nextWidth));
        }
        return "[" + s.substring(hanging.length()) + "]";
    }

    /** numpy's {@code _extendLine}: wraps before {@code word} if the line would get too long (and wrapping helps). */
    private static String extendLine(StringBuilder s, String line, String word, int width, String prefix) {
        boolean needsWrap = line.length() + word.length() > width;
        if (line.length() <= prefix.length()) {
            needsWrap = false;
        }
        if (needsWrap) {
            s.append(line.stripTrailing()).append('\n');
            line = prefix;
        }
        return line + word;
    }

    private interface ElementFormat {
        String format(int offset);
    }

    /** numpy's IntegerFormat: right-aligned to the widest printed element. */
    private static final class IntFormat implements ElementFormat {
        private final int[] data;
        private final int width;

        private IntFormat(int[] data, int width) {
            this.data = data;
            this.width = width;
        }

        static IntFormat of(int[] data, List<Integer> shown) {
            int width = 0;
            for (int off : shown) {
                width = Math.max(width, Integer.toString(data[off]).length());
            }
            return new IntFormat(data, width);
        }

        @Override
        public String format(int offset) {
            return padLeft(Integer.toString(data[offset]), width);
        }
    }

    /** numpy's FloatingFormat in 'maxprec' mode, sign '-'. */
    private static final class FloatFormat implements ElementFormat {
        private final float[] data;
        private boolean exp;
        private int padLeft;
        private int padRight;
        private int precision; // scientific: fractional mantissa digits, shared by all elements
        private int expSize;   // scientific: exponent digits

        private FloatFormat(float[] data) {
            this.data = data;
        }

        static FloatFormat of(float[] data, List<Integer> shown) {
            FloatFormat ff = new FloatFormat(data);
            List<Float> finite = new ArrayList<>();
            boolean nonFinite = false;
            boolean negInf = false;
            for (int off : shown) {
                float v = data[off];
                if (Float.isFinite(v)) {
                    finite.add(v);
                } else {
                    nonFinite = true;
                    negInf |= v == Float.NEGATIVE_INFINITY;
                }
            }
            float maxVal = 0;
            float minVal = Float.POSITIVE_INFINITY;
            for (float v : finite) {
                if (v != 0) {
                    maxVal = Math.max(maxVal, Math.abs(v));
                    minVal = Math.min(minVal, Math.abs(v));
                }
            }
            if (maxVal > 0) {
                // numpy >= 2.3 compares in float32: max >= 10^min(8, finfo(float32).precision = 6) = 1e6,
                // min < 1e-4 or max/min > 1000 switch to scientific
                ff.exp = maxVal >= 1e6f || minVal < 1e-4f || maxVal / minVal > 1000f;
            }
            if (finite.isEmpty()) {
                ff.padLeft = 0;
                ff.padRight = 0;
            } else if (ff.exp) {
                for (float v : finite) {
                    String s = scientificUnique(v, true);
                    int e = s.indexOf('e');
                    int dot = s.indexOf('.');
                    ff.padLeft = Math.max(ff.padLeft, dot);
                    ff.precision = Math.max(ff.precision, e - dot - 1);
                    ff.expSize = Math.max(ff.expSize, s.length() - e - 2);
                }
                ff.padRight = ff.expSize + 2 + ff.precision;
            } else {
                for (float v : finite) {
                    String s = positionalArray(v);
                    int dot = s.indexOf('.');
                    ff.padLeft = Math.max(ff.padLeft, dot);
                    ff.padRight = Math.max(ff.padRight, s.length() - dot - 1);
                }
            }
            if (nonFinite) {
                int offset = ff.padRight + 1;
                ff.padLeft = Math.max(ff.padLeft, Math.max(3 - offset, 3 + (negInf ? 1 : 0) - offset));
            }
            return ff;
        }

        @Override
        public String format(int offset) {
            float v = data[offset];
            if (!Float.isFinite(v)) {
                String ret = Float.isNaN(v) ? "nan" : v < 0 ? "-inf" : "inf";
                return padLeft(ret, padLeft + padRight + 1);
            }
            if (exp) {
                // numpy passes min_digits = precision: elements whose shortest digits are fewer get more digits
                // of their exact value (1.52352936e-06, not 1.5235294e-06 padded with a zero)
                String s = scientific(v, true, precision);
                int e = s.indexOf('e');
                int dot = s.indexOf('.');
                String expSign = s.substring(e + 1, e + 2);
                String expDigits = s.substring(e + 2);
                return padLeft(s.substring(0, dot), padLeft) + s.substring(dot, e) + "e" + expSign
                        + "0".repeat(Math.max(0, expSize - expDigits.length())) + expDigits;
            }
            String s = positionalArray(v);
            int dot = s.indexOf('.');
            String frac = s.substring(dot + 1);
            return padLeft(s.substring(0, dot), padLeft) + "." + frac + " ".repeat(padRight - frac.length());
        }
    }

    /**
     * numpy's {@code str(np.float32(v))}: positional with at least one fractional digit ({@code 5.0}) for 0 and
     * 1e-4 <= |v| < 1e6, otherwise scientific without a trailing dot ({@code 1e-05}, {@code 1e+06}). The upper
     * bound is 1e6 for float32 scalars (numpy uses 1e16 only for float64); the bounds compare the exact value,
     * so {@code float32(1e-4)}, slightly below 1e-4, prints {@code 1e-04} as in numpy.
     */
    static String scalarString(float v) {
        if (Float.isNaN(v)) {
            return "nan";
        }
        if (Float.isInfinite(v)) {
            return v < 0 ? "-inf" : "inf";
        }
        double abs = Math.abs((double) v);
        if (v == 0 || (abs >= 1e-4 && abs < 1e6)) {
            String s = v == 0 ? "0" : shortest(v).toPlainString();
            if (v == 0 && isNegative(v)) {
                s = "-0";
            }
            return s.indexOf('.') < 0 ? s + ".0" : s;
        }
        return scientificUnique(v, false);
    }

    /**
     * Positional, shortest unique digits capped at {@link #PRECISION} fractional digits, trailing zeros
     * trimmed but the dot kept: {@code 5.}, {@code -0.5}, {@code 0.33333334}.
     */
    static String positionalArray(float v) {
        if (v == 0) {
            return isNegative(v) ? "-0." : "0.";
        }
        BigDecimal r = shortest(v);
        if (r.scale() > PRECISION) {
            r = new BigDecimal((double) v).setScale(PRECISION, RoundingMode.HALF_EVEN).stripTrailingZeros();
        }
        String s = r.signum() == 0 ? (isNegative(v) ? "-0" : "0") : r.toPlainString();
        return s.indexOf('.') < 0 ? s + "." : s;
    }

    /**
     * Scientific with the shortest unique mantissa and an exponent of at least two digits:
     * {@code 1.e-05} / {@code 1.2345e+20} when {@code keepDot}, {@code 1e-05} otherwise.
     */
    static String scientificUnique(float v, boolean keepDot) {
        return scientific(v, keepDot, 0);
    }

    /**
     * Scientific with at least {@code minFrac} fractional mantissa digits: the shortest unique digits, or, when
     * those are fewer, the exact value rounded (half even, as Dragon4) to {@code minFrac + 1} significant
     * digits, padded with zeros if the exact value has fewer.
     */
    static String scientific(float v, boolean keepDot, int minFrac) {
        String sign = isNegative(v) ? "-" : "";
        String digits;
        int exponent;
        if (v == 0) {
            digits = "0";
            exponent = 0;
        } else {
            BigDecimal r = shortest(v);
            if (r.precision() < minFrac + 1) {
                r = new BigDecimal((double) v).round(new MathContext(minFrac + 1, RoundingMode.HALF_EVEN));
            }
            digits = r.unscaledValue().abs().toString();
            exponent = digits.length() - 1 - r.scale();
        }
        if (digits.length() < minFrac + 1) {
            digits = digits + "0".repeat(minFrac + 1 - digits.length());
        }
        StringBuilder sb = new StringBuilder(sign).append(digits.charAt(0));
        if (digits.length() > 1 || keepDot) {
            sb.append('.').append(digits, 1, digits.length());
        }
        sb.append('e').append(exponent < 0 ? '-' : '+');
        String e = Integer.toString(Math.abs(exponent));
        if (e.length() < 2) {
            sb.append('0');
        }
        return sb.append(e).toString();
    }

    /** The fewest significant digits (1..9) that round-trip to {@code v}, trailing zeros stripped. */
    static BigDecimal shortest(float v) {
        BigDecimal exact = new BigDecimal((double) v);
        for (int p = 1; p <= 9; p++) {
            BigDecimal r = exact.round(new MathContext(p, RoundingMode.HALF_EVEN));
            if (Float.parseFloat(r.toString()) == v) {
                return r.stripTrailingZeros();
            }
        }
        return exact.round(new MathContext(9, RoundingMode.HALF_EVEN)).stripTrailingZeros(); // 9 always suffice
    }

    private static boolean isNegative(float v) {
        return (Float.floatToRawIntBits(v) & 0x80000000) != 0;
    }

    private static String padLeft(String s, int width) {
        return s.length() >= width ? s : " ".repeat(width - s.length()) + s;
    }
}
