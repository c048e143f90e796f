package dev.shardlings.primitive;

import dev.shardlings.array.DType;
import dev.shardlings.array.NDArray;
import dev.shardlings.array.ReduceOp;
import dev.shardlings.sharding.Mesh;
import dev.shardlings.sharding.PartitionSpec;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * {@code lax.dot_general(lhs, rhs, ((lhsContracting, rhsContracting), (lhsBatch, rhsBatch)), out_sharding)}:
 * contracts pairs of dimensions and keeps batch dimensions, e.g. a matmul A[I, J] · B[J, K] → C[I, K] contracts
 * (1, 0). The result's dimensions are the batch dimensions, then lhs's free dimensions, then rhs's.
 *
 * <p>Typing (JAX's {@code _dot_general_sharding_rule}): with {@code outSharding} the result has it. Otherwise batch
 * and contracting dimensions must not be sharded differently on the two sides; a contracting dimension sharded on
 * both sides is ambiguous (the result could be summed to replicated or scattered) and is a {@link ShardingTypeError}
 * asking for {@code outSharding}; the result takes lhs's batch shardings and both sides' free-dimension shardings.
 *
 * <p>Partitioning (XLA's SPMD dot handler, {@code dot_handler.cc}, in the form its seed programs need): each device
 * multiplies its blocks; when a contracting dimension is split over mesh axes K, the local products are partial
 * sums, completed by an all-reduce over K; where the result's layout splits a dimension over exactly K, that
 * dimension is first cut over the idle devices (the major part of the unused axes, when their devices are a multiple
 * of K's), so the all-reduce carries 1/|K| of the result and a collective-permute moves each block into place, and
 * without enough idle devices the whole result is all-reduced and sliced (XLA:CPU creates no reduce-scatter). On
 * Auto axes the result's layout is Shardy's ({@link #autoRule}); the products keep the larger operand's batch and
 * free shardings first; an operand dimension keeps its axes up to the first one the result already uses elsewhere
 * and the rest is gathered; where that leaves none, its axes move, by one collective-permute, onto unused axes of
 * the same size (else the dimension is gathered). A contracting dimension split on one operand only is summed (the
 * other operand sliced) when the split operand fills its device group and has more elements per group than the
 * result, and gathered otherwise; split on both over different axes into as many parts, the smaller operand moves
 * onto the larger's axes. {@code jit/XlaMatmulPlansTest} and {@code jit/BatchedDotPlansTest} pin these plans against
 * XLA's compiled text.
 *
 * <p>{@code preferred_element_type} (JAX's {@code _maybe_upcast}): the result's dtype when given. Float32 from
 * bfloat16 operands accumulates the products in float32 and leaves the sum unrounded (mixed precision's dot); the
 * local products of a split contraction are then float32 partial sums, and their all-reduce runs in float32 (4
 * bytes an element). Each cotangent's contraction keeps the same preferred dtype and is then converted to its
 * operand's dtype, as JAX's {@code _dot_general_transpose_lhs} does.
 *
 * @param lhsContracting       lhs dimensions contracted
 * @param rhsContracting       the rhs dimensions they contract with, pairwise
 * @param lhsBatch             lhs batch dimensions
 * @param rhsBatch             the rhs batch dimensions they pair with
 * @param outSharding          the result's sharding, or null to let the typing rule decide
 * @param preferredElementType the result's dtype ({@code preferred_element_type}), or null for the operands'
 *                             promoted dtype; besides that dtype only float32 from bfloat16 is computed here
 */
public record DotGeneral(List<Integer> lhsContracting, List<Integer> rhsContracting, List<Integer> lhsBatch,
                         List<Integer> rhsBatch, PartitionSpec outSharding, DType preferredElementType)
        implements Primitive {

    /** @throws NullPointerException if a dimension list is null */
    public DotGeneral {
        lhsContracting = List.copyOf(lhsContracting);
        rhsContracting = List.copyOf(rhsContracting);
        lhsBatch = List.copyOf(lhsBatch);
        rhsBatch = List.copyOf(rhsBatch);
    }

    /**
     * Without {@code preferred_element_type}: the result has the operands' promoted dtype.
     *
     * @throws NullPointerException if a dimension list is null
     */
    public DotGeneral(List<Integer> lhsContracting, List<Integer> rhsContracting, List<Integer> lhsBatch,
                      List<Integer> rhsBatch, PartitionSpec outSharding) {
        this(lhsContracting, rhsContracting, lhsBatch, rhsBatch, outSharding, null);
    }

    /** {@code jnp.matmul} of two 2-D arrays: contracts lhs dimension 1 with rhs dimension 0. */
    public static DotGeneral matmul(PartitionSpec outSharding) {
        return matmul(outSharding, null);
    }

    /**
     * {@code jnp.matmul(x, y, preferred_element_type=preferredElementType)} of two 2-D arrays.
     *
     * @param outSharding          the result's sharding, or null
     * @param preferredElementType the result's dtype, or null for the operands' promoted dtype
     */
    public static DotGeneral matmul(PartitionSpec outSharding, DType preferredElementType) {
        return new DotGeneral(List.of(1), List.of(0), List.of(), List.of(), outSharding, preferredElementType);
    }

    @Override
    public String name() {
        return "dot_general";
    }

    @Override
    public Shaped abstractEval(List<ArrayType> operands) {
        Typing.arity(this, operands, 2);
        ArrayType l = operands.get(0);
        ArrayType r = operands.get(1);
        if (lhsContracting.size() != rhsContracting.size() || lhsBatch.size() != rhsBatch.size()) {
            throw new IllegalArgumentException("dot_general requires equal numbers of lhs and rhs contracting and"
                    + " batch dimensions, got lhs_contracting_dimensions " + Specs.ints(lhsContracting)
                    + ", rhs_contracting_dimensions " + Specs.ints(rhsContracting) + ", lhs_batch_dimensions "
                    + Specs.ints(lhsBatch) + ", rhs_batch_dimensions " + Specs.ints(rhsBatch) + ".");
        }
        checkDims("lhs", l, lhsContracting, lhsBatch);
        checkDims("rhs", r, rhsContracting, rhsBatch);
        for (int i = 0; i < lhsContracting.size(); i++) {
            if (!l.shape().get(lhsContracting.get(i)).equals(r.shape().get(rhsContracting.get(i)))) {
                throw new IllegalArgumentException("dot_general requires contracting dimensions to have the same"
                        + " shape, got " + sizes(l, lhsContracting) + " and " + sizes(r, rhsContracting) + ".");
            }
        }
        for (int i = 0; i < lhsBatch.size(); i++) {
            if (!l.shape().get(lhsBatch.get(i)).equals(r.shape().get(rhsBatch.get(i)))) {
                throw new IllegalArgumentException("dot_general requires lhs batch dimensions and rhs batch"
                        + " dimensions to have the same shape, got " + sizes(l, lhsBatch) + " and "
                        + sizes(r, rhsBatch) + ".");
            }
        }
        List<Integer> shape = new ArrayList<>(sizes(l, lhsBatch));
        shape.addAll(sizes(l, free(l.rank(), lhsContracting, lhsBatch)));
        shape.addAll(sizes(r, free(r.rank(), rhsContracting, rhsBatch)));
        return new Shaped(resultType(DType.promoteTypes(l.dtype(), r.dtype())), shape);
    }

    /**
     * JAX's {@code _maybe_upcast}: the preferred dtype where given; narrowing an integral result is JAX's error.
     * Of the rest only float32 from bfloat16 is computed here (it is what mixed precision needs).
     */
    private DType resultType(DType natural) {
        if (preferredElementType == null || preferredElementType == natural) {
            return natural;
        }
        if (!natural.isFloating() && bitWidth(preferredElementType) < bitWidth(natural)) {
            throw new IllegalArgumentException("`preferred_element_type` must not be narrower than the original type,"
                    + " got preferred_element_type of " + preferredElementType.jaxName() + " for result type of "
                    + natural.jaxName() + ".");
        }
        if (!upcast(natural)) {
            throw new IllegalArgumentException("dot_general: preferred_element_type=" + preferredElementType.jaxName()
                    + " for " + natural.jaxName() + " operands is not supported; use float32 with bfloat16"
                    + " operands, or leave it out");
        }
        return preferredElementType;
    }

    /** Whether the products of operands promoting to {@code natural} accumulate in float32 unrounded. */
    private boolean upcast(DType natural) {
        return natural == DType.BFLOAT16 && preferredElementType == DType.FLOAT32;
    }

    private static int bitWidth(DType t) {
        return t == DType.BOOL ? 1 : 8 * t.byteSize();
    }

    private static void checkDims(String side, ArrayType t, List<Integer> contracting, List<Integer> batch) {
        Set<Integer> seen = new HashSet<>();
        for (List<Integer> ds : List.of(contracting, batch)) {
            for (int d : ds) {
                if (d < 0 || d >= t.rank() || !seen.add(d)) {
                    throw new IllegalArgumentException("dot_general requires " + side + " contracting and batch"
                            + " dimensions to be distinct and in [0, " + t.rank() + "), got contracting "
                            + Specs.ints(contracting) + " and batch " + Specs.ints(batch) + " for " + side
                            + " of shape " + Specs.ints(t.shape()) + ".");
                }
            }
        }
    }

    private static List<Integer> sizes(ArrayType t, List<Integer> dims) {
        return dims.stream().map(t.shape()::get).toList();
    }

    private static List<Integer> free(int rank, List<Integer> contracting, List<Integer> batch) {
        List<Integer> out = new ArrayList<>();
        for (int d = 0; d < rank; d++) {
            if (!contracting.contains(d) && !batch.contains(d)) {
                out.add(d);
            }
        }
        return out;
    }

    private static List<List<String>> specsAt(ArrayType t, List<Integer> dims) {
        return dims.stream().map(t.dims()::get).toList();
    }

    @Override
    public List<List<String>> shardingRule(List<ArrayType> operands, Shaped out, Mesh mesh) {
        if (outSharding != null) {
            return Specs.typed(outSharding, out.shape().size(), mesh);
        }
        ArrayType l = operands.get(0);
        ArrayType r = operands.get(1);
        List<List<String>> lb = specsAt(l, lhsBatch);
        List<List<String>> rb = specsAt(r, rhsBatch);
        checkMatch(lb, rb, "dot_general requires lhs batch dimensions and rhs batch dimensions to have the consistent"
                + " sharding, got " + Specs.tuple(lb) + " and " + Specs.tuple(rb) + ".");
        List<List<String>> lc = specsAt(l, lhsContracting);
        List<List<String>> rc = specsAt(r, rhsContracting);
        checkMatch(lc, rc, "dot_general requires contracting dimensions to have consistent sharding, got "
                + Specs.tuple(lc) + " and " + Specs.tuple(rc) + ".");
        for (int i = 0; i < lc.size(); i++) {
            if (!lc.get(i).isEmpty() && !rc.get(i).isEmpty()) {
                throw new ShardingTypeError("Contracting dimensions are sharded and it is ambiguous how the output"
                        + " should be sharded. Please specify the output sharding via the `out_sharding` parameter."
                        + " Got lhs_contracting_spec=" + Specs.tuple(lc) + " and rhs_contracting_spec="
                        + Specs.tuple(rc));
            }
        }
        List<List<String>> dims = new ArrayList<>(lb);
        dims.addAll(specsAt(l, free(l.rank(), lhsContracting, lhsBatch)));
        dims.addAll(specsAt(r, free(r.rank(), rhsContracting, rhsBatch)));
        return dims;
    }

    private static void checkMatch(List<List<String>> a, List<List<String>> b, String message) {
        for (int i = 0; i < a.size(); i++) {
            if (!a.get(i).isEmpty() && !b.get(i).isEmpty() && !a.get(i).equals(b.get(i))) {
                throw new ShardingTypeError(message);
            }
        }
    }

    /**
     * JAX's {@code _dot_general_transpose_lhs} and {@code _rhs}: each operand's cotangent is the contraction of the
     * result's cotangent with the other operand over its free dimensions, transposed back to the operand's order.
     * On Explicit axes the contraction asks for the operand's own sharding, as JAX passes {@code out_sharding}.
     * One simplification of JAX's emitted program, with the same values: where JAX's contraction comes out
     * transposed and the contraction with the operands swapped comes out in the operand's order (W in
     * {@code x @ W}: JAX emits {@code transpose(dot_general(ct, x))}), the swapped one is emitted, with no
     * transpose — what XLA's algebraic simplifier makes of JAX's program.
     */
    @Override
    public <T> List<T> vjp(Vjp<T> v) {
        List<T> out = Vjp.cotangents(2);
        if (!v.type(v.out()).dtype().isFloating()) {
            return out;
        }
        if (v.needs(0) && v.operandType(0).dtype().isFloating()) {
            out.set(0, transposeLhs(v, v.operandType(0), v.operandType(1), v.operand(1), lhsContracting,
                    rhsContracting, lhsBatch, rhsBatch, false, preferredElementType));
        }
        if (v.needs(1) && v.operandType(1).dtype().isFloating()) {
            out.set(1, transposeLhs(v, v.operandType(1), v.operandType(0), v.operand(0), rhsContracting,
                    lhsContracting, rhsBatch, lhsBatch, true, preferredElementType));
        }
        return out;
    }

    private static <T> T transposeLhs(Vjp<T> v, ArrayType x, ArrayType yType, Object y, List<Integer> xContract,
                                      List<Integer> yContract, List<Integer> xBatch, List<Integer> yBatch,
                                      boolean swapAns, DType preferred) {
        List<Integer> xKept = free(x.rank(), xContract, xBatch);
        List<Integer> yKept = free(yType.rank(), yContract, yBatch);
        int nb = xBatch.size();
        // the result's dimensions: batch, then lhs free, then rhs free (swapped when x is the rhs)
        int yStart = swapAns ? nb : nb + xKept.size();
        List<Integer> ansBatch = range(0, nb);
        List<Integer> ansY = range(yStart, yStart + yKept.size());
        // x's contracting dimensions, ordered as y's contracting dimensions are sorted
        Integer[] byY = new Integer[yContract.size()];
        for (int k = 0; k < byY.length; k++) {
            byY[k] = k;
        }
        java.util.Arrays.sort(byY, java.util.Comparator.comparing(yContract::get));
        List<Integer> order = new ArrayList<>(xBatch);
        order.addAll(xKept);
        for (Integer k : byY) {
            order.add(xContract.get(k));
        }
        // The same contraction with the operands swapped, dot_general(y, ct), gives x's dimensions as batch, then
        // contracting (in y's order), then kept. Where that is x's own order and JAX's (ct, y) order is not (the
        // weight of x @ W: JAX contracts to Wᵀ and transposes it back), the swapped product needs no transpose.
        // Same values bit for bit: each element is the same products (a·b = b·a) added in the same order.
        List<Integer> swapped = new ArrayList<>(xBatch);
        for (Integer k : byY) {
            swapped.add(xContract.get(k));
        }
        swapped.addAll(xKept);
        boolean swap = !isIdentity(order) && isIdentity(swapped);
        if (swap) {
            order = swapped;
        }
        PartitionSpec outSharding = null;
        if (x.mesh() != null && x.mesh().hasExplicitAxes()) {
            List<Object> entries = new ArrayList<>();
            for (int d : order) {
                List<String> axes = x.dims().get(d);
                entries.add(axes.isEmpty() ? null : axes);
            }
            outSharding = PartitionSpec.P(entries.toArray());
        }
        if (swap) {
            return toDType(v, v.bind(new DotGeneral(yKept, ansY, yBatch, ansBatch, outSharding, preferred), y,
                    v.ct()), x.dtype());
        }
        T product = v.bind(new DotGeneral(ansY, yKept, ansBatch, yBatch, outSharding, preferred), v.ct(), y);
        Integer[] outAxes = new Integer[order.size()];
        for (int k = 0; k < outAxes.length; k++) {
            outAxes[order.get(k)] = k;
        }
        boolean identity = true;
        for (int k = 0; k < outAxes.length; k++) {
            identity &= outAxes[k] == k;
        }
        return toDType(v, identity ? product : v.bind(new Transpose(List.of(outAxes)), product), x.dtype());
    }

    /**
     * A cotangent has its operand's dtype: one left wider by the preferred dtype (or by a float32 operand beside a
     * bfloat16 one) is converted back, as JAX's transpose rule converts it.
     */
    private static <T> T toDType(Vjp<T> v, T ct, DType dtype) {
        return v.type(ct).dtype() == dtype ? ct : v.bind(new ConvertType(dtype), ct);
    }

    private static boolean isIdentity(List<Integer> order) {
        for (int k = 0; k < order.size(); k++) {
            if (order.get(k) != k) {
                return false;
            }
        }
        return true;
    }

    private static List<Integer> range(int from, int to) {
        List<Integer> r = new ArrayList<>();
        for (int k = from; k < to; k++) {
            r.add(k);
        }
        return r;
    }

    @Override
    public NDArray apply(List<NDArray> operands) {
        NDArray l = operands.get(0);
        NDArray r = operands.get(1);
        int[] ls = l.shape();
        int[] rs = r.shape();
        List<Integer> lf = free(ls.length, lhsContracting, lhsBatch);
        List<Integer> rf = free(rs.length, rhsContracting, rhsBatch);
        int b = prod(ls, lhsBatch);
        int m = prod(ls, lf);
        int k = prod(ls, lhsContracting);
        int n = prod(rs, rf);
        List<Integer> shape = new ArrayList<>();
        lhsBatch.forEach(d -> shape.add(ls[d]));
        lf.forEach(d -> shape.add(ls[d]));
        rf.forEach(d -> shape.add(rs[d]));
        int[] outShape = shape.stream().mapToInt(Integer::intValue).toArray();
        int[] lp = concat(lhsBatch, lf, lhsContracting);
        int[] rp = concat(rhsBatch, rhsContracting, rf);
        DType natural = DType.promoteTypes(l.dtype(), r.dtype());
        DType preferred = resultType(natural);
        if (upcast(natural)) {
            // float32 accumulation, unrounded: NDArray#matmul(NDArray, DType) on operands in matmul order (the
            // transposes move bfloat16 values exactly)
            NDArray l3 = l.transpose(lp).reshape(b, m, k);
            NDArray r3 = r.transpose(rp).reshape(b, k, n);
            List<NDArray> products = new ArrayList<>(b);
            for (int i = 0; i < b; i++) {
                products.add(l3.index(i).matmul(r3.index(i), preferred));
            }
            return (b == 1 ? products.get(0) : NDArray.stack(0, products)).reshape(outShape);
        }
        if (b == 1) {
            // one matmul: no batch to index, and operands already in [free, contracted] / [contracted, free] order
            // are only reshaped (views), so a plain matmul runs the kernel on the blocks as they are
            // an operand laid out [contracted, free] (lhs) or [free, contracted] (rhs) is read transposed by the
            // kernel, without a transposed copy: the same bits (NDArray#matmul(boolean, NDArray, boolean))
            boolean lt = !identity(lp) && identity(concat(lhsContracting, lf));
            boolean rt = !identity(rp) && identity(concat(rf, rhsContracting));
            NDArray l2 = lt ? l.reshape(k, m) : (identity(lp) ? l : l.transpose(lp)).reshape(m, k);
            NDArray r2 = rt ? r.reshape(n, k) : (identity(rp) ? r : r.transpose(rp)).reshape(k, n);
            return (lt || rt ? l2.matmul(lt, r2, rt) : l2.matmul(r2)).reshape(outShape);
        }
        NDArray lt = l.transpose(lp).reshape(b, m, k);
        NDArray rt = r.transpose(rp).reshape(b, k, n);
        List<NDArray> products = new ArrayList<>(b);
        for (int i = 0; i < b; i++) {
            products.add(lt.index(i).matmul(rt.index(i)));
        }
        return NDArray.stack(0, products).reshape(outShape);
    }

    private static boolean identity(int[] perm) {
        for (int i = 0; i < perm.length; i++) {
            if (perm[i] != i) {
                return false;
            }
        }
        return true;
    }

    private static int prod(int[] shape, List<Integer> dims) {
        int p = 1;
        for (int d : dims) {
            p *= shape[d];
        }
        return p;
    }

    @SafeVarargs
    private static int[] concat(List<Integer>... lists) {
        List<Integer> all = new ArrayList<>();
        for (List<Integer> l : lists) {
            all.addAll(l);
        }
        return all.stream().mapToInt(Integer::intValue).toArray();
    }

    /**
     * What each operand needs and what the local products are: per operand the layout for the local product and
     * the layout it passes through first (empty: none), the contracted axes, and the product's layout.
     */
    private record Plan(List<List<String>> lhs, List<List<String>> rhs, List<List<String>> lhsVia,
                        List<List<String>> rhsVia, List<String> contracted, List<List<String>> natural,
                        Partitioning.Share share) {
    }

    /** True when the rhs has more bytes than the lhs: XLA then takes the rhs's shardings first (ties: the lhs's). */
    private static boolean rhsFirst(ArrayType l, ArrayType r) {
        return (long) r.dtype().byteSize() * r.size() > (long) l.dtype().byteSize() * l.size();
    }

    /**
     * On Auto axes (Shardy's aggressive factor propagation, as JAX 0.10.2 runs it; {@code jax-checks/
     * batched_dot_plans.py} pins it on every pair of layouts of three batched einsums): the operands keep their
     * layouts, so only the result's dimensions (its factors: batch, lhs free, rhs free) take axes. A batch dimension
     * laid out on both operands takes the longer layout where one is a prefix of the other, else their common prefix
     * (B_x against B_y is replicated). The factors then claim their axes in order: those whose source (the operand
     * holding the longer layout, the lhs on a tie) is the larger operand first — A[I_x, J] · B[J, K_x] is
     * C[I_x, K] for equal sizes but C[I, K_x] when B is larger —, then by source, lhs first, then in the result's
     * order; a factor keeps its axes up to the first one an earlier factor claimed (C[B_x, K_(x,y)] gives
     * C[B_x, K]). With {@code outSharding} the result has it.
     */
    @Override
    public List<List<String>> autoRule(List<ArrayType> operands, Shaped out, Mesh mesh) {
        if (outSharding != null) {
            return Specs.typed(outSharding, out.shape().size(), mesh);
        }
        ArrayType l = operands.get(0);
        ArrayType r = operands.get(1);
        List<Integer> lFree = free(l.rank(), lhsContracting, lhsBatch);
        List<Integer> rFree = free(r.rank(), rhsContracting, rhsBatch);
        int b = lhsBatch.size();
        List<List<String>> wanted = new ArrayList<>();
        List<Integer> source = new ArrayList<>();
        for (int i = 0; i < b; i++) {
            List<String> x = l.dims().get(lhsBatch.get(i));
            List<String> y = r.dims().get(rhsBatch.get(i));
            wanted.add(merged(x, y));
            source.add(x.size() >= y.size() ? 0 : 1);
        }
        for (int d : lFree) {
            wanted.add(l.dims().get(d));
            source.add(0);
        }
        for (int d : rFree) {
            wanted.add(r.dims().get(d));
            source.add(1);
        }
        int first = rhsFirst(l, r) ? 1 : 0;
        List<Integer> order = new ArrayList<>();
        for (int side : new int[] {first, 1 - first}) {
            for (int e = 0; e < wanted.size(); e++) {
                if (source.get(e) == side) {
                    order.add(e);
                }
            }
        }
        Set<String> claimed = new HashSet<>();
        List<List<String>> dims = new ArrayList<>(Specs.replicated(wanted.size()));
        for (int e : order) {
            List<String> kept = new ArrayList<>();
            for (String a : wanted.get(e)) {
                if (claimed.contains(a)) {
                    break;
                }
                kept.add(a);
            }
            claimed.addAll(kept);
            dims.set(e, List.copyOf(kept));
        }
        return List.copyOf(dims);
    }

    /** A batch dimension's layout from its two operands': the longer where one extends the other, else the common
     * prefix (Shardy resolves a conflict within a factor to what both agree on). */
    private static List<String> merged(List<String> x, List<String> y) {
        List<String> shorter = x.size() <= y.size() ? x : y;
        List<String> longer = shorter == x ? y : x;
        int common = 0;
        while (common < shorter.size() && shorter.get(common).equals(longer.get(common))) {
            common++;
        }
        return common == shorter.size() ? longer : shorter.subList(0, common);
    }

    /**
     * The operand layouts for local products, as XLA's SPMD partitioner chooses them ({@code dot_handler.cc}),
     * for the result layout {@code out}.
     * <ol>
     *   <li>Batch and free dimensions keep their operand's axes, the larger operand's first (XLA's propagation
     *       infers a dot's sharding from the larger operand first); these axes group the devices, and the rest of
     *       the work happens within each group.</li>
     *   <li>An operand dimension keeps its axes up to the first one the result already uses on another dimension
     *       (the rest is gathered); where that leaves none, its axes move to mesh axes of the same size that nothing
     *       uses (a collective-permute, XLA's regrouping of the other operand), and without them it is gathered. A
     *       free dimension so moved is then gathered within the group.</li>
     *   <li>A contracting dimension split on both sides alike is summed; split on both sides over different axes
     *       into as many parts, the smaller operand is re-laid out as the larger. Split on one side only, the other
     *       operand is sliced and the products summed when the split operand fills its group (no replication
     *       within it), the other operand and the result are replicated within the group, and the split operand has
     *       more elements per group than the result; otherwise the split operand is gathered.</li>
     *   <li>A result dimension {@code out} splits over unused axes over which its operand is replicated is sliced
     *       locally before the product. One {@code out} splits over exactly the contracted axes K is computed in
     *       shares ({@link #share}); without idle devices for them it stays whole until the all-reduce and is
     *       sliced after it.</li>
     * </ol>
     */
    private Plan plan(ArrayType l, ArrayType r, ArrayType out) {
        Mesh mesh = l.mesh() != null ? l.mesh() : r.mesh();
        List<Integer> lFree = free(l.rank(), lhsContracting, lhsBatch);
        List<Integer> rFree = free(r.rank(), rhsContracting, rhsBatch);
        int b = lhsBatch.size();
        List<List<String>> lhs = new ArrayList<>(Specs.replicated(l.rank()));
        List<List<String>> rhs = new ArrayList<>(Specs.replicated(r.rank()));
        List<List<String>> lEff = new ArrayList<>(l.dims());
        List<List<String>> rEff = new ArrayList<>(r.dims());
        List<List<String>> natural = new ArrayList<>(Specs.replicated(b + lFree.size() + rFree.size()));
        Set<String> used = new HashSet<>();
        // the larger operand's batch and free dimensions first, then the other's; an operand dimension whose axes
        // the result already uses is moved or gathered
        List<int[]> moved = new ArrayList<>();
        boolean rhsFirst = rhsFirst(l, r);
        for (int side : rhsFirst ? new int[] {1, 0} : new int[] {0, 1}) {
            ArrayType t = side == 0 ? l : r;
            for (int i = 0; i < b; i++) {
                int d = (side == 0 ? lhsBatch : rhsBatch).get(i);
                List<String> s = t.dims().get(d);
                if (!natural.get(i).isEmpty() || s.isEmpty()) {
                    continue;
                }
                s = unclaimedPrefix(s, used);
                if (s.isEmpty()) {
                    moved.add(new int[] {side, d});
                    continue;
                }
                used.addAll(s);
                lhs.set(lhsBatch.get(i), s);
                rhs.set(rhsBatch.get(i), s);
                natural.set(i, s);
            }
            List<Integer> f = side == 0 ? lFree : rFree;
            for (int j = 0; j < f.size(); j++) {
                List<String> s = unclaimedPrefix(t.dims().get(f.get(j)), used);
                if (s.isEmpty() && !t.dims().get(f.get(j)).isEmpty()) {
                    moved.add(new int[] {side, f.get(j)});
                    continue;
                }
                used.addAll(s);
                (side == 0 ? lhs : rhs).set(f.get(j), s);
                natural.set(side == 0 ? b + j : b + lFree.size() + j, s);
            }
        }
        Set<String> group = new HashSet<>(used);
        Set<String> taken = new HashSet<>(used);
        l.dims().forEach(taken::addAll);
        r.dims().forEach(taken::addAll);
        // the operands as moved onto the group's devices (via); a dimension with nothing to move to is gathered
        List<List<String>> lVia = new ArrayList<>(l.dims());
        List<List<String>> rVia = new ArrayList<>(r.dims());
        for (int i = 0; i < lhsContracting.size(); i++) {
            moved.add(new int[] {0, lhsContracting.get(i)});
            moved.add(new int[] {1, rhsContracting.get(i)});
        }
        for (int[] m : moved) {
            List<List<String>> eff = m[0] == 0 ? lEff : rEff;
            if (eff.get(m[1]).stream().noneMatch(used::contains)) {
                continue;
            }
            List<String> sub = substitute(eff.get(m[1]), taken, mesh);
            eff.set(m[1], sub);
            if (!sub.isEmpty()) {
                (m[0] == 0 ? lVia : rVia).set(m[1], sub);
            }
        }
        List<String> contracted = new ArrayList<>();
        List<List<String>> outDims = out.dims();
        for (int i = 0; i < lhsContracting.size(); i++) {
            List<String> a = lEff.get(lhsContracting.get(i));
            List<String> c = rEff.get(rhsContracting.get(i));
            List<String> k;
            if (!a.isEmpty() && !c.isEmpty()) {
                // XLA re-lays the smaller operand out as the larger; for equal sizes the lhs moves onto the rhs's
                // axes (checked on JAX 0.10.2: f32[4,8] P(None,'x') · f32[8,4] P('y',None) permutes the lhs)
                boolean keepRhs = (long) r.dtype().byteSize() * r.size() >= (long) l.dtype().byteSize() * l.size();
                k = a.equals(c) || Specs.parts(mesh, a) != Specs.parts(mesh, c) || !keepRhs ? a : c;
                if (!a.equals(c) && Specs.parts(mesh, a) == Specs.parts(mesh, c)) {
                    // the smaller operand's blocks move whole onto the larger's devices (one collective-permute)
                    (k == a ? rVia : lVia).set(k == a ? rhsContracting.get(i) : lhsContracting.get(i), k);
                }
            } else if (!a.isEmpty()) {
                k = sliceOther(l, lEff, rEff, resultSize(l, r), group, outDims, mesh) ? a : Specs.NONE;
            } else if (!c.isEmpty()) {
                k = sliceOther(r, rEff, lEff, resultSize(l, r), group, outDims, mesh) ? c : Specs.NONE;
            } else {
                k = Specs.NONE;
            }
            if (k.stream().anyMatch(used::contains)) {
                k = Specs.NONE;
            }
            used.addAll(k);
            contracted.addAll(k);
            lhs.set(lhsContracting.get(i), k);
            rhs.set(rhsContracting.get(i), k);
        }
        splitAsOut(l, r, out, lhs, rhs, used, natural);
        Partitioning.Share share = share(l, r, out, contracted, natural, used, taken, mesh);
        return new Plan(lhs, rhs, lVia.equals(l.dims()) ? List.of() : lVia, rVia.equals(r.dims()) ? List.of() : rVia,
                contracted, natural, share);
    }

    /**
     * The axes of an operand dimension up to the first one the result already uses: the product keeps them, and
     * only the rest is gathered (XLA gathers B[B_(y,x)] over x alone where the result's x splits another
     * dimension).
     */
    private static List<String> unclaimedPrefix(List<String> axes, Set<String> used) {
        int p = 0;
        while (p < axes.size() && !used.contains(axes.get(p))) {
            p++;
        }
        return axes.subList(0, p);
    }

    /**
     * XLA's plan for a result dimension that {@code out} splits over exactly the contracted axes K (seed 000's case
     * 3 asked for as C[I_K, N]): the devices that no axis of the product uses (idle: each K-group's products are
     * repeated on them) each compute a share of that dimension — cut by the major part of their index, when their
     * number is a multiple of |K| —, so the all-reduce over K carries 1/|K| of the result and a collective-permute
     * then moves every block to the devices {@code out} gives it. Null where the result's other dimensions are not
     * yet as {@code out} wants them, no dimension asks for K, or the idle devices are too few; the whole result is
     * then all-reduced and sliced, as XLA:CPU does (JAX 0.10.2 on 4 × 2 and 4 × 1 meshes).
     */
    private Partitioning.Share share(ArrayType l, ArrayType r, ArrayType out, List<String> contracted,
                                     List<List<String>> natural, Set<String> used, Set<String> taken, Mesh mesh) {
        List<String> k = nonTrivial(contracted, mesh);
        if (k.isEmpty()) {
            return null;
        }
        int dim = -1;
        for (int e = 0; e < natural.size(); e++) {
            List<String> want = nonTrivial(out.dims().get(e), mesh);
            if (dim < 0 && natural.get(e).isEmpty() && !want.isEmpty() && Set.copyOf(want).equals(Set.copyOf(k))) {
                dim = e;
            } else if (!nonTrivial(natural.get(e), mesh).equals(want)) {
                return null;
            }
        }
        List<String> idle = mesh.axisNames().stream()
                .filter(a -> mesh.axisSize(a) > 1 && !used.contains(a) && !taken.contains(a)).toList();
        int parts = mesh.axisSize(k);
        if (dim < 0 || idle.isEmpty() || mesh.axisSize(idle) % parts != 0) {
            return null;
        }
        int b = lhsBatch.size();
        List<Integer> lFree = free(l.rank(), lhsContracting, lhsBatch);
        List<Integer> rFree = free(r.rank(), rhsContracting, rhsBatch);
        List<Integer> operandDim = dim < b ? List.of(lhsBatch.get(dim), rhsBatch.get(dim))
                : dim < b + lFree.size() ? List.of(lFree.get(dim - b), -1)
                : List.of(-1, rFree.get(dim - b - lFree.size()));
        return new Partitioning.Share(dim, operandDim, idle, parts);
    }

    private static List<String> nonTrivial(List<String> axes, Mesh mesh) {
        return axes.stream().filter(a -> mesh.axisSize(a) > 1).toList();
    }

    /**
     * An axis list with each axis replaced by an unused one of the same size (first in mesh order), recorded as
     * taken; empty when some axis has none, so the dimension is gathered.
     */
    private static List<String> substitute(List<String> axes, Set<String> taken, Mesh mesh) {
        List<String> out = new ArrayList<>();
        for (String a : axes) {
            String sub = null;
            for (String c : mesh.axisNames()) {
                if (sub == null && !taken.contains(c) && !out.contains(c) && mesh.axisSize(c) == mesh.axisSize(a)
                        && mesh.axisSize(c) > 1) {
                    sub = c;
                }
            }
            if (sub == null) {
                return Specs.NONE;
            }
            out.add(sub);
        }
        taken.addAll(out);
        return List.copyOf(out);
    }

    /**
     * XLA's choice for a contracting dimension split (over {@code axes}) on one operand only: slice the other
     * operand and sum the products, rather than gather the split one, when the split operand fills its group of
     * devices, the other operand and the result are replicated within the group, and the split operand has more
     * elements per group than the result ({@code should_partition_contracting_dim}).
     */
    private static boolean sliceOther(ArrayType split, List<List<String>> splitDims, List<List<String>> otherDims,
                                      long resultSize, Set<String> group, List<List<String>> outDims, Mesh mesh) {
        Set<String> splitUses = new HashSet<>();
        splitDims.forEach(splitUses::addAll);
        for (String a : mesh.axisNames()) {
            if (mesh.axisSize(a) > 1 && !group.contains(a) && !splitUses.contains(a)) {
                return false;
            }
        }
        for (List<List<String>> dims : List.of(otherDims, outDims)) {
            for (List<String> e : dims) {
                if (e.stream().anyMatch(a -> !group.contains(a) && mesh.axisSize(a) > 1)) {
                    return false;
                }
            }
        }
        return perGroup(split.size(), splitDims, group, mesh) > perGroup(resultSize, outDims, group, mesh);
    }

    private long resultSize(ArrayType l, ArrayType r) {
        long n = 1;
        for (int d : lhsBatch) {
            n *= l.shape().get(d);
        }
        for (int d : free(l.rank(), lhsContracting, lhsBatch)) {
            n *= l.shape().get(d);
        }
        for (int d : free(r.rank(), rhsContracting, rhsBatch)) {
            n *= r.shape().get(d);
        }
        return n;
    }

    /** Elements of a value per device group: its size over the parts the group's axes split it into. */
    private static long perGroup(long size, List<List<String>> dims, Set<String> group, Mesh mesh) {
        long parts = 1;
        for (List<String> e : dims) {
            for (String a : e) {
                if (group.contains(a)) {
                    parts *= mesh.axisSize(a);
                }
            }
        }
        return size / parts;
    }

    /** Adds to {@code natural} (and the operand layouts) the axes {@code out} splits a free or batch dimension by. */
    private void splitAsOut(ArrayType l, ArrayType r, ArrayType out, List<List<String>> lhs, List<List<String>> rhs,
                            Set<String> used, List<List<String>> natural) {
        List<Integer> lFree = free(l.rank(), lhsContracting, lhsBatch);
        List<Integer> rFree = free(r.rank(), rhsContracting, rhsBatch);
        for (int d = 0; d < natural.size(); d++) {
            List<String> want = out.dims().get(d);
            int b = lhsBatch.size();
            // only axes the operand is replicated over: then the split is a local slice, never data movement
            Set<String> held = new HashSet<>();
            if (d < b || d < b + lFree.size()) {
                l.dims().forEach(held::addAll);
            }
            if (d < b || d >= b + lFree.size()) {
                r.dims().forEach(held::addAll);
            }
            if (!natural.get(d).isEmpty() || want.isEmpty() || want.stream().anyMatch(a -> used.contains(a)
                    || held.contains(a))) {
                continue;
            }
            used.addAll(want);
            natural.set(d, want);
            if (d < b) {
                lhs.set(lhsBatch.get(d), want);
                rhs.set(rhsBatch.get(d), want);
            } else if (d < b + lFree.size()) {
                lhs.set(lFree.get(d - b), want);
            } else {
                rhs.set(rFree.get(d - b - lFree.size()), want);
            }
        }
    }

    @Override
    public Partitioning partition(List<ArrayType> operands, ArrayType out) {
        DotGeneral local = new DotGeneral(lhsContracting, rhsContracting, lhsBatch, rhsBatch, null,
                preferredElementType);
        Plan p = plan(operands.get(0), operands.get(1), out);
        return Partitioning.withVia(List.of(p.lhs, p.rhs), local, p.contracted, ReduceOp.SUM, p.natural,
                List.of(p.lhsVia, p.rhsVia), p.share);
    }

    private static long localSize(List<Integer> shape, List<List<String>> dims, Mesh mesh) {
        long n = 1;
        for (int s : Typing.localShape(shape, dims, mesh)) {
            n *= s;
        }
        return n;
    }

    @Override
    public long flops(List<ArrayType> operands, ArrayType out) {
        ArrayType l = operands.get(0);
        long k = 1;
        for (int d : lhsContracting) {
            k *= l.shape().get(d);
        }
        return 2 * out.size() * k;
    }
}
