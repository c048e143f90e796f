package dev.shardlings.grader.chapter5;

import dev.shardlings.array.NDArray;
import dev.shardlings.grader.parts.Check;
import dev.shardlings.grader.parts.CourseMethod;
import dev.shardlings.grader.parts.Part;
import dev.shardlings.sharding.Mesh;
import dev.shardlings.spmd.ShardedArray;

import java.util.List;

import static dev.shardlings.grader.parts.Part.example;
import static dev.shardlings.grader.parts.Part.property;

/**
 * Chapter 5's parts (automatic parallelism with jit), one row each.
 */
public final class Chapter5Parts {

    static final Part.Chapter CHAPTER = new Part.Chapter("chapter 5", "automatic parallelism", "Chapter5");

    /**
     * The cases every Chapter 5 part is graded on: a property over meshes (1–16 devices, X = 1 and Y = 1 included),
     * shapes and values, and fixed examples (seed 002's 2 × 2 mesh, one device, 16 devices in a row or a column, a
     * 4 × 2 mesh).
     */
    private static final Part.Property<Chapter5Case> CASES = property("meshesShapesAndValues", 40, "5005",
            Chapter5Case::cases);
    private static final List<Part.Example<Chapter5Case>> EXAMPLES = List.of(
            example("twoByTwo", new Chapter5Case(2, 2, 2, 2, 3, 51)),
            example("oneDevice", new Chapter5Case(1, 1, 3, 2, 1, 52)),
            example("sixteenDevicesInOneRow", new Chapter5Case(16, 1, 1, 1, 2, 53)),
            example("sixteenDevicesInOneColumn", new Chapter5Case(1, 16, 2, 1, 1, 54)),
            example("fourByTwo", new Chapter5Case(4, 2, 1, 3, 2, 55)));

    private static final String D = "docs/chapter-5.md#";

    /** {@code Chapter5.matmulWithoutCommunication}. */
    public static final CourseMethod<Chapter5Checks.MatmulWithoutCommunication> C5_MATMUL_WITHOUT_COMMUNICATION = CHAPTER.method("matmulWithoutCommunication", Chapter5Checks.MatmulWithoutCommunication.class, ShardedArray.class, NDArray.class, NDArray.class, Mesh.class);
    /** {@code Chapter5.matmulReduceScatter}. */
    public static final CourseMethod<Chapter5Checks.PlacedMatmul> C5_MATMUL_REDUCE_SCATTER = CHAPTER.method("matmulReduceScatter", Chapter5Checks.PlacedMatmul.class, ShardedArray.class, ShardedArray.class, ShardedArray.class);
    /** {@code Chapter5.matmulSquare}. */
    public static final CourseMethod<Chapter5Checks.PlacedMatmul> C5_MATMUL_SQUARE = CHAPTER.method("matmulSquare", Chapter5Checks.PlacedMatmul.class, ShardedArray.class, ShardedArray.class, ShardedArray.class);
    /** {@code Chapter5.matmulSquareExplicit}. */
    public static final CourseMethod<Chapter5Checks.PlacedMatmul> C5_MATMUL_SQUARE_EXPLICIT = CHAPTER.method("matmulSquareExplicit", Chapter5Checks.PlacedMatmul.class, ShardedArray.class, ShardedArray.class, ShardedArray.class);

    /** Part 5.1. */
    public static final Part P5_1 = CHAPTER.part("5.1", "jit, layouts with no communication", 2, "MatmulWithoutCommunication")
            .calls(C5_MATMUL_WITHOUT_COMMUNICATION)
            .docs(D + "part-51-layouts-that-need-no-communication")
            .hint("split A's rows over X and B's columns over Y (P(\"X\", null) and P(null, \"Y\")): the contracted J is then"
                    + " whole on every device, and C[I_X, K_Y] is every device's own product.")
            .requires(C5_MATMUL_WITHOUT_COMMUNICATION, "values (float tolerance) and layout", Check.VALUES, Check.LAYOUT)
            .requires(C5_MATMUL_WITHOUT_COMMUNICATION, "compiled by jit, with no hand-written shardMap", Check.USES_JIT)
            .requires(C5_MATMUL_WITHOUT_COMMUNICATION, "the compiled program has no collective", Check.NO_COLLECTIVES)
            .requires(C5_MATMUL_WITHOUT_COMMUNICATION, "every device holds only its blocks of A and B,"
                    + " (I·J/X + J·K/Y)·4 bytes of inputs", Check.DEVICE_MEMORY)
            .requires(C5_MATMUL_WITHOUT_COMMUNICATION, "every device does exactly 2·I·J·K/(X·Y) matmul FLOPs", Check.FLOPS)
            .graded(CASES, EXAMPLES, c -> Chapter5Checks.matmulWithoutCommunication(C5_MATMUL_WITHOUT_COMMUNICATION.proxy(), c));

    /** Part 5.2. */
    public static final Part P5_2 = CHAPTER.part("5.2", "jit, the out sharding chooses the collective", 2, "MatmulReduceScatter")
            .calls(C5_MATMUL_REDUCE_SCATTER)
            .docs(D + "part-52-the-out-sharding-chooses-the-collective")
            .hint("give Jit.jit(...) outShardings(P(\"X\", null)) so the layout is part of the program: the compiler then"
                    + " completes the partial sums with a reduce-scatter instead of an all-reduce and a slice.")
            .requires(C5_MATMUL_REDUCE_SCATTER, "values (float tolerance) and layout", Check.VALUES, Check.LAYOUT)
            .requires(C5_MATMUL_REDUCE_SCATTER, "compiled by jit, with no hand-written shardMap", Check.USES_JIT)
            .requires(C5_MATMUL_REDUCE_SCATTER, "every device receives at most (X−1)/X · I·K·4 bytes (one "
                    + "reduce-scatter of its partial product, where an all-reduce would cost twice that)", Check.BYTES)
            .graded(CASES, EXAMPLES, c -> Chapter5Checks.matmulReduceScatter(C5_MATMUL_REDUCE_SCATTER.proxy(), c));

    /** Part 5.3. */
    public static final Part P5_3 = CHAPTER.part("5.3", "jit, matmul_square on Auto axes", 2, "MatmulSquare")
            .calls(C5_MATMUL_SQUARE)
            .docs(D + "part-53-matmul_square-on-auto-axes")
            .hint("Jit.jit((x, w) -> ShardedArray.einsum(\"bd,df->bf\", x.square(), w)).outShardings(P(\"X\", null)):"
                    + " square keeps In's layout, and the contraction over D_Y needs one all-reduce over Y.")
            .requires(C5_MATMUL_SQUARE, "values (float tolerance) and layout", Check.VALUES, Check.LAYOUT)
            .requires(C5_MATMUL_SQUARE, "compiled by jit, with no hand-written shardMap", Check.USES_JIT)
            .requires(C5_MATMUL_SQUARE, "exactly one collective per device, an all-reduce over Y of "
                    + "f32[B/X, F] (none when Y = 1)", Check.COLLECTIVES, Check.OPERANDS)
            .graded(CASES, EXAMPLES, c -> Chapter5Checks.matmulSquare(C5_MATMUL_SQUARE.proxy(), c));

    /** Part 5.4. */
    public static final Part P5_4 = CHAPTER.part("5.4", "matmul_square on Explicit axes", 2, "MatmulSquareExplicit")
            .calls(C5_MATMUL_SQUARE_EXPLICIT)
            .docs(D + "part-54-matmul_square-on-explicit-axes")
            .hint("ShardedArray.einsum(\"bd,df->bf\", x.square(), w, P(\"X\", null)): the out sharding argument settles"
                    + " the ambiguity the typing rule reports.")
            .requires(C5_MATMUL_SQUARE_EXPLICIT, "values (float tolerance) and layout", Check.VALUES, Check.LAYOUT)
            .requires(C5_MATMUL_SQUARE_EXPLICIT, "no hand-written shardMap (jit or eager global-view "
                    + "operations)", Check.NO_SHARD_MAP)
            .requires(C5_MATMUL_SQUARE_EXPLICIT, "exactly one collective per device, an all-reduce over Y "
                    + "of f32[B/X, F] (none when Y = 1)", Check.COLLECTIVES, Check.OPERANDS)
            .graded(CASES, EXAMPLES, c -> Chapter5Checks.matmulSquareExplicit(C5_MATMUL_SQUARE_EXPLICIT.proxy(), c));

    /** The parts of chapter 5, in course order. */
    public static final List<Part> PARTS = List.of(P5_1, P5_2, P5_3, P5_4);

    private Chapter5Parts() {
    }
}
