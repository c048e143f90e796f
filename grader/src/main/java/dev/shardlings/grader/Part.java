package dev.shardlings.grader;

import java.util.List;
import java.util.Optional;

/**
 * Every graded part of the course, in course order: the single source of numbers, titles, points, the course
 * methods each part calls, and where its docs are. A graded test class names its part with
 * {@code @GradedPart(Part.P1_1A)}, so a part that does not exist cannot be named; {@code PartCorrespondenceTest}
 * checks that parts, graded test classes, course methods, stubs and solutions correspond one to one.
 */
public enum Part {
    /** Part 0.1. */
    P0_1("0.1", "matmul, no sharded contracting dim", 1,
            List.of(CourseMethod.MATMUL_NO_COMMUNICATION),
            Text.D0 + "part-01-no-sharded-contracting-dimension",
            "A[I_X, J] and B[J, K_Y] give each device whole rows of A and whole columns of B: multiply the blocks."),
    /** Part 0.2. */
    P0_2("0.2", "matmul, all-gather A", 2,
            List.of(CourseMethod.MATMUL_GATHER_A),
            Text.D0 + "part-02-one-operand-sharded-on-the-contracting-dimension",
            "AllGather_X A[I, J_X] → A[I, J] along dimension 1 (Tiling.TILED), then multiply by B; allGatherInvariant"
                    + " makes the result legal for out spec P()."),
    /** Part 0.3. */
    P0_3("0.3", "matmul, local then psum", 2,
            List.of(CourseMethod.MATMUL_PSUM),
            Text.D0 + "part-03-both-operands-sharded-on-the-contracting-dimension",
            "the product of the local blocks is a partial sum C[I, K]{U_X}; one psum over X completes it."),
    /** Part 0.4. */
    P0_4("0.4", "matmul, reduce-scatter + all-gather", 2,
            List.of(CourseMethod.MATMUL_REDUCE_SCATTER_ALL_GATHER),
            Text.D0 + "part-04-all-reduce-as-reduce-scatter-then-all-gather",
            "psumScatter(partial, \"X\", 0, Tiling.TILED) leaves each device I/X summed rows; gather them along"
                    + " dimension 0."),
    /** Part 0.5. */
    P0_5("0.5", "matmul, same axis twice", 2,
            List.of(CourseMethod.MATMUL_SAME_AXIS_GATHER_B, CourseMethod.MATMUL_SAME_AXIS_GATHER_A),
            Text.D0 + "part-05-both-non-contracting-dimensions-on-the-same-axis",
            "for C[I_X, K] gather B's columns (dimension 1); for C[I, K_X] gather A's rows (dimension 0)."),
    /** Part 0.6. */
    P0_6("0.6", "parallel normalisation", 2,
            List.of(CourseMethod.PARALLEL_NORMALIZE),
            Text.D0 + "part-06-parallel-normalisation",
            "the row's mean is the pmean over j of the blocks' means (equal block widths); the variance likewise,"
                    + " after subtracting the global mean."),
    /** Part 0.7. */
    P0_7("0.7", "matmul with a gathered weight", 1,
            List.of(CourseMethod.MATMUL_WITH_GATHERED_WEIGHT),
            Text.D0 + "part-07-matmul-with-a-gathered-weight",
            "gather w's row blocks along dimension 0 (Tiling.TILED) over i, then x_block · w."),
    /** Part 0.8. */
    P0_8("0.8", "ring shift with ppermute", 2,
            List.of(CourseMethod.RING_SHIFT),
            Text.D0 + "part-08-ring-shift",
            "the pair for source s is (s, (s + k) mod n) — use Math.floorMod so negative k works."),
    /** Part 0.9. */
    P0_9("0.9", "slice and average", 1,
            List.of(CourseMethod.SLICE_AND_AVERAGE),
            Text.D0 + "part-09-slice-and-average",
            "slice the block's first 4 elements first, then pmean over both axes at once: pmean(x, \"x\", \"y\")."),
    /** Part 0.10. */
    P0_10("0.10", "per-device randomness", 1,
            List.of(CourseMethod.FOLD_KEY_OVER_AXIS),
            Text.D0 + "part-010-per-device-randomness",
            "PRNG.foldIn(key, axisIndex(\"i\")) differs along i and not along j; out spec P(\"i\", null)."),
    /** Part 1.1a. */
    P1_1A("1.1a", "per-shard mean with shardMap", 2,
            List.of(CourseMethod.PER_SHARD_MEAN),
            "docs/problem-1.md#part-11a-per-shard-mean-with-shardmap",
            "reduce each block to shape (1, 1) with mean(true) so that out spec P(\"X\", \"Y\") assembles an [X, Y] array."),
    /** Part 1.1b. */
    P1_1B("1.1b", "per-shard mean with jit", 2,
            List.of(CourseMethod.PER_SHARD_MEAN_GLOBAL),
            "docs/problem-1.md#part-11b-per-shard-mean-with-jit",
            "inside Jit.jit reshape [S, D] to [X, S/X, Y, D/Y]: axes 0 and 2 pick the shard, axes 1 and 3 run inside"
                    + " it, so mean(1, 3) never crosses a device; outShardings(P(\"X\", \"Y\"))."),
    /** Part 1.2a. */
    P1_2A("1.2a", "roll within shards with shardMap", 3,
            List.of(CourseMethod.ROLL_WITHIN_SHARDS),
            "docs/problem-1.md#part-12a-roll-within-shards-with-shardmap",
            "inside shardMap each device sees only its block, so roll(block, shift, 0) can never cross a shard"
                    + " boundary; subtract the block afterwards."),
    /** Part 1.2b. */
    P1_2B("1.2b", "roll within shards with jit", 3,
            List.of(CourseMethod.ROLL_WITHIN_SHARDS_GLOBAL),
            "docs/problem-1.md#part-12b-roll-within-shards-with-jit",
            "inside Jit.jit reshape [S, D] to [X, S/X, D] and roll along axis 1: a roll along the whole axis 0 would"
                    + " move rows across shard boundaries, and the compiler would have to communicate."),
    /** Part 2.1. */
    P2_1("2.1", "mixture of experts, local", 3,
            List.of(CourseMethod.MOE_LOCAL),
            Text.D2 + "part-21-the-local-version",
            "order = B.argsort() groups the tokens by expert; for each expert e multiply A.take(rows, 0) by"
                    + " W.take(0, e), then put the rows back with one take by the inverse positions."),
    /** Part 2.2. */
    P2_2("2.2", "mixture of experts, jit", 2,
            List.of(CourseMethod.MOE_JIT, CourseMethod.MOE_JIT_BYTES_RECEIVED),
            Text.D2 + "part-22-jit-the-local-version-and-read-what-the-compiler-did",
            "oneHot, then einsum(\"se,sd->esd\"), einsum(\"esd,edf->esf\") with W and einsum(\"se,esf->sf\"), inside"
                    + " Jit.jitList(...).outShardings(P(\"X\", \"Y\")); for the report, lower the same Jitted on"
                    + " (a, w, b) and read costAnalysis().bytesCommunicated()."),
    /** Part 2.3a. */
    P2_3A("2.3a", "mixture of experts, all-gather", 2,
            List.of(CourseMethod.MOE_ALL_GATHER),
            Text.D2 + "part-23a-gather-then-compute",
            "device x owns experts [x·E/X, (x+1)·E/X): after gathering A and B, compute only the tokens routed"
                    + " there (zeros elsewhere) and psumScatter the [S, F/Y] partial result over X along rows."),
    /** Part 2.3b. */
    P2_3B("2.3b", "mixture of experts, ragged all-to-all", 4,
            List.of(CourseMethod.MOE_ALL_TO_ALL),
            Text.D2 + "part-23b-ragged-all-to-all",
            "per round and destination x', send rows [round·C, (round+1)·C) of your tokens for x' (zero rows and"
                    + " expert id −1 where there are fewer); allToAll(buf, \"X\", 0, 0, Tiling.TILED) there and back"
                    + " keeps the slots in place, so slot j of the returned results belongs to the token you put in"
                    + " slot j."),
    /** Part 2.4. */
    P2_4("2.4", "mixture of experts, top-k", 3,
            List.of(CourseMethod.MOE_TOP_K_LOCAL, CourseMethod.MOE_TOP_K_ALL_TO_ALL),
            Text.D2 + "part-24-top-k-routing",
            "build int32 indices [0, …, 0, 1, …, 1, …] (each token k times) with NDArray.fromInts; row i·k + j of"
                    + " A.take(indices, 0) is token i for its j-th expert: route those S·k rows as in 2.1 / 2.3b, then"
                    + " reshape the result to [S, k, F] and take the mean over axis 1."),
    /** Part 3.0. */
    P3_0("3.0", "all-gather collective matmul", 3,
            List.of(CourseMethod.P3_ALL_GATHER_MATMUL, CourseMethod.P3_ALL_GATHER_MATMUL_NAIVE),
            Text.D3 + "part-30-the-all-gather-collective-matmul",
            "after k shifts up the ring device y holds A's chunk (y − k) mod n, which multiplies rows"
                    + " [(y − k) mod n · D/Y, …) of its W block; use Math.floorMod for the chunk number."),
    /** Part 3.1. */
    P3_1("3.1", "all-reduce collective matmul", 2,
            List.of(CourseMethod.P3_ALL_REDUCE_MATMUL),
            Text.D3 + "part-31-the-all-reduce-collective-matmul",
            "for tile j multiply the A block by columns [j·F/tiles, (j + 1)·F/tiles) of the W block, psum that"
                    + " over Y, and concatenate the reduced tiles along dimension 1."),
    /** Part 3.2. */
    P3_2("3.2", "reduce-scatter collective matmul", 3,
            List.of(CourseMethod.P3_REDUCE_SCATTER_MATMUL),
            Text.D3 + "part-32-the-reduce-scatter-collective-matmul",
            "the accumulator that ends on device c must start on device c + 1 and pass every other device once:"
                    + " device y adds its partial product for chunk (y − 1 − k) mod n after k shifts up."),
    /** Part 3.3. */
    P3_3("3.3", "transformer block", 3,
            List.of(CourseMethod.TRANSFORMER_BLOCK, CourseMethod.TRANSFORMER_BLOCK_NAIVE),
            Text.D3 + "part-33-a-transformer-block",
            "one shardMap over (In, Win, Wout): the 3.0 steps give the hidden block [B/X, F/Y], gelu it, and the"
                    + " 3.2 steps take it to Out [B/X, D/Y]."),
    /** Part 4.0. */
    P4_0("4.0", "bidirectional all-gather matmul", 2,
            List.of(CourseMethod.P4_ALL_GATHER_MATMUL),
            Text.D4 + "part-40-bidirectional-all-gather-collective-matmul",
            "send the left half of the A chunk up the ring and the right half down; after k steps you hold the"
                    + " left half of chunk (y − k) mod n and the right half of chunk (y + k) mod n."),
    /** Part 4.1. */
    P4_1("4.1", "bidirectional all-reduce matmul", 3,
            List.of(CourseMethod.P4_ALL_REDUCE_MATMUL),
            Text.D4 + "part-41-bidirectional-all-reduce-collective-matmul",
            "a ring all-reduce is a ring reduce-scatter (n − 1 steps) then a ring all-gather (n − 1 steps); do one"
                    + " on the left half of the partial product going up and one on the right half going down."),
    /** Part 4.2. */
    P4_2("4.2", "bidirectional reduce-scatter matmul", 2,
            List.of(CourseMethod.P4_REDUCE_SCATTER_MATMUL),
            Text.D4 + "part-42-bidirectional-reduce-scatter-collective-matmul",
            "two accumulators per chunk: its left half travels up from device c + 1, its right half travels down"
                    + " from device c − 1, each adding the partial product of the columns it carries."),
    /** Part 5.1. */
    P5_1("5.1", "jit, layouts with no communication", 2,
            List.of(CourseMethod.C5_MATMUL_WITHOUT_COMMUNICATION),
            Text.D5 + "part-51-layouts-that-need-no-communication",
            "split A's rows over X and B's columns over Y (P(\"X\", null) and P(null, \"Y\")): the contracted J is then"
                    + " whole on every device, and C[I_X, K_Y] is every device's own product."),
    /** Part 5.2. */
    P5_2("5.2", "jit, the out sharding chooses the collective", 2,
            List.of(CourseMethod.C5_MATMUL_REDUCE_SCATTER),
            Text.D5 + "part-52-the-out-sharding-chooses-the-collective",
            "give Jit.jit(...) outShardings(P(\"X\", null)) so the layout is part of the program: the compiler then"
                    + " completes the partial sums with a reduce-scatter instead of an all-reduce and a slice."),
    /** Part 5.3. */
    P5_3("5.3", "jit, matmul_square on Auto axes", 2,
            List.of(CourseMethod.C5_MATMUL_SQUARE),
            Text.D5 + "part-53-matmul_square-on-auto-axes",
            "Jit.jit((x, w) -> ShardedArray.einsum(\"bd,df->bf\", x.square(), w)).outShardings(P(\"X\", null)):"
                    + " square keeps In's layout, and the contraction over D_Y needs one all-reduce over Y."),
    /** Part 5.4. */
    P5_4("5.4", "matmul_square on Explicit axes", 2,
            List.of(CourseMethod.C5_MATMUL_SQUARE_EXPLICIT),
            Text.D5 + "part-54-matmul_square-on-explicit-axes",
            "ShardedArray.einsum(\"bd,df->bf\", x.square(), w, P(\"X\", null)): the out sharding argument settles"
                    + " the ambiguity the typing rule reports."),
    /** Part 6.1. */
    P6_1("6.1", "data parallelism with jit(grad)", 2,
            List.of(CourseMethod.C6_TRAIN_DATA_PARALLEL),
            Text.D6 + "part-61-data-parallelism-with-jit",
            "devicePut every parameter with P() and the inputs and targets with P(\"batch\"), then call one jitted"
                    + " program per step that applies Autodiff.gradList to Mlp.loss and returns the updated"
                    + " parameters: the compiler all-reduces the gradients."),
    /** Part 6.2. */
    P6_2("6.2", "data and tensor parallelism with jit(grad)", 2,
            List.of(CourseMethod.C6_TRAIN_DATA_TENSOR_PARALLEL),
            Text.D6 + "part-62-data-and-tensor-parallelism-with-jit",
            "W2 P(null, \"model\"), b2 P(\"model\"), W3 P(\"model\", null), the rest P(), the batch"
                    + " P(\"batch\", null): the hidden layer between W2 and W3 stays split over 'model', and W3's"
                    + " contraction sums it with one all-reduce."),
    /** Part 6.3. */
    P6_3("6.3", "data parallelism by hand (pmean)", 2,
            List.of(CourseMethod.C6_DATA_PARALLEL_STEP),
            Text.D6 + "part-63-data-parallelism-by-hand",
            "inside the shardMap, pvary each parameter over \"batch\", take Autodiff.gradList of Mlp.lossLocal on"
                    + " the device's rows, and pmean each gradient over \"batch\" before the update."),
    /** Part 6.4. */
    P6_4("6.4", "fully sharded data parallelism (ZeRO-3)", 3,
            List.of(CourseMethod.C6_FSDP_STEP),
            Text.D6 + "part-64-fully-sharded-data-parallelism",
            "all-gather (tiled, dimension 0) each shard inside the function you differentiate and divide its loss by"
                    + " the axis size: the gradient of the all-gather is a reduce-scatter that sums the devices'"
                    + " gradients into each shard."),
    /** Part 6.5. */
    P6_5("6.5", "Megatron's tensor-parallel MLP block", 2,
            List.of(CourseMethod.C6_MEGATRON_MLP),
            Text.D6 + "part-65-megatrons-mlp-block",
            "Autodiff.vjp of x -> psum(relu(x·W1)·W2, \"model\") inside the shardMap: the psum's pullback sends"
                    + " dY to every device for free, and dX's partial sums come back with the one psum the implicit"
                    + " pvary of X transposes to."),
    /** Part 3.0p. */
    P3_0P("3.0p", "3.0 modelled time, TPU v5e", 1,
            List.of(CourseMethod.P3_ALL_GATHER_MATMUL),
            Text.DP, Text.PERF_HINT),
    /** Part 3.1p. */
    P3_1P("3.1p", "3.1 modelled time, TPU v5e", 1,
            List.of(CourseMethod.P3_ALL_REDUCE_MATMUL),
            Text.DP, Text.PERF_HINT),
    /** Part 3.2p. */
    P3_2P("3.2p", "3.2 modelled time, TPU v5e", 1,
            List.of(CourseMethod.P3_REDUCE_SCATTER_MATMUL),
            Text.DP, Text.PERF_HINT),
    /** Part 3.3p. */
    P3_3P("3.3p", "3.3 modelled time, TPU v5e", 1,
            List.of(CourseMethod.TRANSFORMER_BLOCK),
            Text.DP, Text.PERF_HINT),
    /** Part 4.0p. */
    P4_0P("4.0p", "4.0 modelled time, TPU v4", 1,
            List.of(CourseMethod.P4_ALL_GATHER_MATMUL),
            Text.DP, Text.PERF_HINT),
    /** Part 4.1p. */
    P4_1P("4.1p", "4.1 modelled time, TPU v4", 1,
            List.of(CourseMethod.P4_ALL_REDUCE_MATMUL),
            Text.DP, Text.PERF_HINT),
    /** Part 4.2p. */
    P4_2P("4.2p", "4.2 modelled time, TPU v4", 1,
            List.of(CourseMethod.P4_REDUCE_SCATTER_MATMUL),
            Text.DP, Text.PERF_HINT),
    /** Part 6.2p. */
    P6_2P("6.2p", "6.2 modelled step time, TPU v5e", 1,
            List.of(CourseMethod.C6_TRAIN_DATA_TENSOR_PARALLEL),
            Text.D6P, Text.PERF6_HINT),
    /** Part 6.3p. */
    P6_3P("6.3p", "6.3 modelled step time, TPU v5e", 1,
            List.of(CourseMethod.C6_DATA_PARALLEL_STEP),
            Text.D6P, Text.PERF6_HINT),
    /** Part 6.4p. */
    P6_4P("6.4p", "6.4 modelled step time, TPU v5e", 1,
            List.of(CourseMethod.C6_FSDP_STEP),
            Text.D6P, Text.PERF6_HINT),
    /** Part 6.5p. */
    P6_5P("6.5p", "6.5 modelled time, TPU v5e", 1,
            List.of(CourseMethod.C6_MEGATRON_MLP),
            Text.D6P, Text.PERF6_HINT);

    /** Text shared by several parts (a nested class: enum constants cannot read the enum's own static fields). */
    private static final class Text {
        static final String D0 = "docs/chapter-0.md#";
        static final String D2 = "docs/problem-2.md#";
        static final String D3 = "docs/problem-3.md#";
        static final String D4 = "docs/problem-4.md#";
        static final String D5 = "docs/chapter-5.md#";
        static final String D6 = "docs/chapter-6.md#";
        static final String DP = "docs/profiles.md#performance-points";
        static final String D6P = "docs/chapter-6.md#performance-points";
        static final String PERF6_HINT = "the reference moves each gradient (or shard) once, in the collective the"
            + " part names, and computes only its own rows or columns; compare your timeline (written under"
            + " grader/target/grade/profiles/) with the breakdown in docs/chapter-6.md.";
        static final String PERF_HINT = "the reference overlaps every transfer with a matmul and does no"
            + " elementwise pass the matmul cannot absorb; compare your timeline (written under"
            + " grader/target/grade/profiles/) with the reference picture in docs/profiles.md.";
    }

    private final String number;
    private final String title;
    private final int points;
    private final List<CourseMethod> methods;
    private final String docs;
    private final String hint;

    Part(String number, String title, int points, List<CourseMethod> methods, String docs, String hint) {
        this.number = number;
        this.title = title;
        this.points = points;
        this.methods = methods;
        this.docs = docs;
        this.hint = hint;
    }

    /** The part number, e.g. {@code "1.1a"} (Gradescope's {@code number}). */
    public String number() {
        return number;
    }

    /** A short title. */
    public String title() {
        return title;
    }

    /** Points for a pass. */
    public int points() {
        return points;
    }

    /** The course methods the part's checks call, in the order the stub file lists them. */
    public List<CourseMethod> methods() {
        return methods;
    }

    /** Where the student's stub is: {@code exercises/src/main/java/dev/shardlings/course/Problem1.java → perShardMean}. */
    public String startAt() {
        return "exercises/src/main/java/dev/shardlings/course/" + methods.get(0).className() + ".java → "
                + String.join(" / ", methods.stream().map(CourseMethod::methodName).toList());
    }

    /** The docs page and section that explain the part. */
    public String docs() {
        return docs;
    }

    /** One sentence that helps most when the values are wrong. */
    public String hint() {
        return hint;
    }

    /**
     * Gradescope tags: the chapter ("chapter 0", "problem 3"), its topic, and "modelled time" for a performance
     * part; instructors filter the class's results by them.
     */
    public List<String> tags() {
        String cls = methods.get(0).className();
        String chapter = cls.replaceAll("([A-Za-z]+)(\\d+)", "$1 $2").toLowerCase(java.util.Locale.ROOT);
        String topic = switch (cls) {
            case "Chapter0" -> "collectives";
            case "Problem1" -> "shardMap and global view";
            case "Problem2" -> "mixture of experts";
            case "Problem3" -> "collective matmul";
            case "Problem4" -> "bidirectional collective matmul";
            case "Chapter5" -> "automatic parallelism";
            case "Chapter6" -> "training";
            default -> throw new IllegalStateException("no topic for the course class " + cls);
        };
        return isPerformance() ? List.of(chapter, topic, "modelled time") : List.of(chapter, topic);
    }

    /** True for the modelled-time parts (3.0p …), which score a performance figure rather than a program. */
    public boolean isPerformance() {
        return number.endsWith("p");
    }

    /** All parts in course order. */
    public static List<Part> all() {
        return List.of(values());
    }

    /** The part with this number. */
    public static Optional<Part> byNumber(String number) {
        return all().stream().filter(p -> p.number.equals(number)).findFirst();
    }
}
