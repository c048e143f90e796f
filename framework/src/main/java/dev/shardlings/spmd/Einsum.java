package dev.shardlings.spmd;

import dev.shardlings.array.DType;
import dev.shardlings.primitive.DotGeneral;
import dev.shardlings.sharding.PartitionSpec;

import java.util.ArrayList;
import java.util.List;

/**
 * {@code jnp.einsum} of two global arrays (see {@link ShardedArray#einsum(String, ShardedArray, ShardedArray)}):
 * parses and checks the subscripts, sums away the letters only one operand has and the output lacks, and runs the
 * contraction as one {@code dot_general} (then a transpose to the output's order), so its typing and communication
 * are dot_general's. Arguments were checked for null by {@link ShardedArray}.
 */
final class Einsum {

    private Einsum() {
    }

    /**
     * {@code jnp.einsum(subscripts, x, y, out_sharding=outSharding, preferred_element_type=preferredElementType)};
     * a null outSharding lets dot_general's typing rule choose, a null preferredElementType gives the promoted
     * dtype.
     *
     * @throws IllegalArgumentException for malformed subscripts, a subscript count that is not an operand's rank,
     *                                  or sizes that differ for one letter
     */
    static ShardedArray einsum(String subscripts, ShardedArray x, ShardedArray y, PartitionSpec outSharding,
                               DType preferredElementType) {
        String s = subscripts.replace(" ", "");
        int arrow = s.indexOf("->");
        int comma = s.indexOf(',');
        if (arrow < 0 || comma < 0 || comma > arrow || s.indexOf(',', comma + 1) >= 0) {
            throw new IllegalArgumentException("einsum subscripts must look like \"ab,bc->ac\" (two operands and an"
                    + " output), got \"" + subscripts + "\"");
        }
        String l = s.substring(0, comma);
        String r = s.substring(comma + 1, arrow);
        String o = s.substring(arrow + 2);
        checkSubscripts(l, x, "first operand");
        checkSubscripts(r, y, "second operand");
        for (char c : o.toCharArray()) {
            if (l.indexOf(c) < 0 && r.indexOf(c) < 0) {
                throw new IllegalArgumentException("einsum output subscript '" + c + "' appears in no operand of \""
                        + subscripts + "\"");
            }
            if (o.indexOf(c) != o.lastIndexOf(c)) {
                throw new IllegalArgumentException("einsum output subscript '" + c + "' appears more than once in \""
                        + subscripts + "\"");
            }
        }
        for (char c : l.toCharArray()) {
            int k = r.indexOf(c);
            if (k >= 0 && x.shape[l.indexOf(c)] != y.shape[k]) {
                throw new IllegalArgumentException("einsum: subscript '" + c + "' has size " + x.shape[l.indexOf(c)]
                        + " in the first operand and " + y.shape[k] + " in the second");
            }
        }
        // letters in one operand only and not in the output are summed away first
        ShardedArray a = sumOnly(x, l, r, o);
        ShardedArray b = sumOnly(y, r, l, o);
        String la = kept(l, r, o);
        String rb = kept(r, l, o);
        List<Integer> lc = new ArrayList<>();
        List<Integer> rc = new ArrayList<>();
        List<Integer> lb = new ArrayList<>();
        List<Integer> rbatch = new ArrayList<>();
        StringBuilder order = new StringBuilder();
        for (char c : la.toCharArray()) {
            if (rb.indexOf(c) >= 0) {
                if (o.indexOf(c) >= 0) {
                    lb.add(la.indexOf(c));
                    rbatch.add(rb.indexOf(c));
                    order.append(c);
                } else {
                    lc.add(la.indexOf(c));
                    rc.add(rb.indexOf(c));
                }
            }
        }
        for (char c : la.toCharArray()) {
            if (rb.indexOf(c) < 0) {
                order.append(c);
            }
        }
        for (char c : rb.toCharArray()) {
            if (la.indexOf(c) < 0) {
                order.append(c);
            }
        }
        // dot_general's result order → the output's order
        int[] perm = new int[o.length()];
        boolean identity = true;
        for (int k = 0; k < perm.length; k++) {
            perm[k] = order.indexOf(String.valueOf(o.charAt(k)));
            identity &= perm[k] == k;
        }
        PartitionSpec dotSharding = null;
        if (outSharding != null) {
            List<Object> entries = new ArrayList<>();
            PartitionSpec padded = outSharding.padTo(o.length());
            for (int d = 0; d < order.length(); d++) {
                List<String> axes = padded.axesAt(o.indexOf(order.charAt(d)));
                entries.add(axes.isEmpty() ? null : axes);
            }
            dotSharding = PartitionSpec.P(entries.toArray());
        }
        ShardedArray out = GlobalOps.apply(a, new DotGeneral(lc, rc, lb, rbatch, dotSharding, preferredElementType),
                GlobalOps.of(b));
        return identity ? out : out.transpose(perm);
    }

    private static void checkSubscripts(String sub, ShardedArray t, String which) {
        if (sub.length() != t.rank()) {
            throw new IllegalArgumentException("einsum: the " + which + " has rank " + t.rank() + " but subscripts \""
                    + sub + "\" name " + sub.length() + " dimensions");
        }
        for (char c : sub.toCharArray()) {
            if (!Character.isLetter(c) || sub.indexOf(c) != sub.lastIndexOf(c)) {
                throw new IllegalArgumentException("einsum: subscripts \"" + sub + "\" of the " + which + " must be"
                        + " distinct letters (a repeated letter, a trace or a diagonal, is not supported)");
            }
        }
    }

    private static ShardedArray sumOnly(ShardedArray t, String own, String other, String out) {
        List<Integer> axes = new ArrayList<>();
        for (int k = 0; k < own.length(); k++) {
            char c = own.charAt(k);
            if (other.indexOf(c) < 0 && out.indexOf(c) < 0) {
                axes.add(k);
            }
        }
        return axes.isEmpty() ? t : t.sum(axes.stream().mapToInt(Integer::intValue).toArray());
    }

    private static String kept(String own, String other, String out) {
        StringBuilder sb = new StringBuilder();
        for (char c : own.toCharArray()) {
            if (other.indexOf(c) >= 0 || out.indexOf(c) >= 0) {
                sb.append(c);
            }
        }
        return sb.toString();
    }
}
