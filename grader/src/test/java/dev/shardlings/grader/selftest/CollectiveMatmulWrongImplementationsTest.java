package dev.shardlings.grader.selftest;

import dev.shardlings.grader.problem3.Problem3Checks;
import dev.shardlings.array.NDArray;
import dev.shardlings.grader.judge.GradingFailure;
import dev.shardlings.grader.judge.GradingFailure.Kind;
import dev.shardlings.grader.checks.MeshSpec;
import dev.shardlings.grader.parts.Part;
import dev.shardlings.grader.problem3.MatmulCase;
import dev.shardlings.grader.problem3.MeasuredRun;
import dev.shardlings.grader.problem4.Problem4Checks;
import dev.shardlings.spmd.ShardMap;
import dev.shardlings.spmd.ShardedArray;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.function.BinaryOperator;

import static dev.shardlings.spmd.Tiling.TILED;
import static dev.shardlings.sharding.PartitionSpec.P;
import static dev.shardlings.spmd.Collectives.allGather;
import static dev.shardlings.spmd.Collectives.axisIndex;
import static dev.shardlings.spmd.Collectives.axisSize;
import static dev.shardlings.spmd.Collectives.ppermute;
import static dev.shardlings.spmd.Collectives.psum;
import static dev.shardlings.spmd.Collectives.psumScatter;
import static dev.shardlings.spmd.ShardMap.shardMap;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Deliberately wrong collective matmuls (Problems 3 and 4), each rejected for the right reason, and right ones
 * written differently from the reference solutions, each accepted. The implementations here are the grader's own
 * test fixtures: the grader never calls solutions/.
 */
class CollectiveMatmulWrongImplementationsTest {

    /** The book's mesh: X = 2, Y = 4; B = 2, D = 8 (4.x: 16), F = 8. */
    private static final MatmulCase BOOK = new MatmulCase(MeshSpec.of("X", 2, "Y", 4), 1, 2, 2, 7, 2);

    private static GradingFailure rejected(Kind kind, String inMessage, Executable check) {
        GradingFailure f = Pinned.record(assertThrows(GradingFailure.class, check));
        assertEquals(kind, f.kind(), () -> "rejected for another reason: " + f.reason() + "\n" + f.getMessage());
        assertTrue(f.getMessage().contains(inMessage), () -> "report lacks \"" + inMessage + "\":\n" + f.getMessage());
        return f;
    }

    private static int[][] shift(int n, int by) {
        int[][] p = new int[n][];
        for (int s = 0; s < n; s++) {
            p[s] = new int[]{s, Math.floorMod(s + by, n)};
        }
        return p;
    }

    private static BinaryOperator<ShardedArray> xyAndColsY(java.util.function.BinaryOperator<NDArray> body) {
        return (a, w) -> shardMap(body, a.mesh(), P("X", "Y"), P(null, "Y"), P("X", "Y")).apply(a, w);
    }

    /** A right 3.0 baseline, so that the collective half alone decides. */
    private static final BinaryOperator<ShardedArray> NAIVE_3_0 = xyAndColsY((x, v) -> allGather(x, "Y", 1, TILED)
            .matmul(v));

    /** A right 3.0 written the book's way: chunks travel down (s → s − 1), so device y holds chunk y + k. */
    private static final BinaryOperator<ShardedArray> DOWN_THE_RING_3_0 = xyAndColsY((x, v) -> {
        int n = axisSize("Y");
        int y = axisIndex("Y").intAt();
        int c = x.shape(1);
        NDArray acc = NDArray.zeros(dev.shardlings.array.DType.FLOAT32, x.shape(0), v.shape(1));
        NDArray cur = x;
        for (int k = 0; k < n; k++) {
            int chunk = (y + k) % n;
            acc = acc.add(cur.matmul(v.slice(0, chunk * c, (chunk + 1) * c)));
            if (k < n - 1) {
                cur = ppermute(cur, "Y", shift(n, -1));
            }
        }
        return acc;
    });

    @Test
    void theBooksDirectionIsAcceptedToo() {
        Problem3Checks.allGatherMatmul(DOWN_THE_RING_3_0, NAIVE_3_0, BOOK);
        Problem3Checks.allGatherMatmul(DOWN_THE_RING_3_0, NAIVE_3_0, new MatmulCase(MeshSpec.of("X", 1, "Y", 3),
                2, 1, 1, 8, 2));
    }

    @Test
    void anAllGatherIsNotACollectiveMatmul() {
        GradingFailure f = rejected(Kind.STRUCTURE, "this part allows only ppermute over Y",
                () -> Problem3Checks.allGatherMatmul(NAIVE_3_0, NAIVE_3_0, BOOK));
        assertTrue(f.getMessage().contains("all_gather over ('Y',)"), "shows what the device did");
    }

    @Test
    void gatheringWithPpermutesThenOneMatmulIsRejected() {
        BinaryOperator<ShardedArray> gatherByHand = xyAndColsY((x, v) -> {
            int n = axisSize("Y");
            int y = axisIndex("Y").intAt();
            NDArray[] chunks = new NDArray[n];
            chunks[y] = x;
            NDArray cur = x;
            for (int k = 1; k < n; k++) {
                cur = ppermute(cur, "Y", shift(n, 1));
                chunks[Math.floorMod(y - k, n)] = cur;
            }
            return NDArray.concat(1, chunks).matmul(v);
        });
        rejected(Kind.STRUCTURE, "multiply one A chunk at a time",
                () -> Problem3Checks.allGatherMatmul(gatherByHand, NAIVE_3_0, BOOK));
    }

    @Test
    void theWrongChunkOfWIsWrongValues() {
        BinaryOperator<ShardedArray> plusInsteadOfMinus = xyAndColsY((x, v) -> {
            int n = axisSize("Y");
            int y = axisIndex("Y").intAt();
            int c = x.shape(1);
            NDArray acc = x.matmul(v.slice(0, y * c, (y + 1) * c));
            NDArray cur = x;
            for (int k = 1; k < n; k++) {
                cur = ppermute(cur, "Y", shift(n, 1));
                int chunk = (y + k) % n; // travels up, so it is chunk y − k
                acc = acc.add(cur.matmul(v.slice(0, chunk * c, (chunk + 1) * c)));
            }
            return acc;
        });
        rejected(Kind.WRONG_VALUES, "Expected vs actual",
                () -> Problem3Checks.allGatherMatmul(plusInsteadOfMinus, NAIVE_3_0, BOOK));
    }

    @Test
    void jumpingStraightToEachChunkIsNotARingShift() {
        BinaryOperator<ShardedArray> jumps = xyAndColsY((x, v) -> {
            int n = axisSize("Y");
            int y = axisIndex("Y").intAt();
            int c = x.shape(1);
            NDArray acc = x.matmul(v.slice(0, y * c, (y + 1) * c));
            for (int k = 1; k < n; k++) {
                NDArray got = ppermute(x, "Y", shift(n, k)); // k hops at once
                int chunk = Math.floorMod(y - k, n);
                acc = acc.add(got.matmul(v.slice(0, chunk * c, (chunk + 1) * c)));
            }
            return acc;
        });
        GradingFailure f = rejected(Kind.STRUCTURE, "is not a shift by one step round the ring",
                () -> Problem3Checks.allGatherMatmul(jumps, NAIVE_3_0, BOOK));
        // Which step went wrong (the first shift, by one, was right), and the rule's own hint.
        assertTrue(f.getMessage().contains("its ring step 2 (ppermute with"), f.getMessage());
        assertTrue(f.getMessage().contains("Hint: pass data only to a neighbour"), f.getMessage());
    }

    @Test
    void aNaiveBaselineThatGathersTheWeightsIsRejected() {
        BinaryOperator<ShardedArray> gathersW = (a, w) -> shardMap((x, v) -> allGather(x, "Y", 1, TILED)
                        .matmul(allGather(v, "Y", 1, TILED)).slice(1, axisIndex("Y").intAt() * v.shape(1),
                                (axisIndex("Y").intAt() + 1) * v.shape(1)),
                a.mesh(), P("X", "Y"), P(null, "Y"), P("X", "Y")).apply(a, w);
        rejected(Kind.STRUCTURE, "exactly one all_gather over Y",
                () -> Problem3Checks.allGatherMatmul(DOWN_THE_RING_3_0, gathersW, BOOK));
    }

    // ------------------------------------------------------------------------------------------------- 3.1

    private static ShardedArray allReduce(ShardedArray a, ShardedArray w, java.util.function.BinaryOperator<NDArray> body) {
        return shardMap(body, a.mesh(), P("X", "Y"), P("Y", null), P("X", null)).apply(a, w);
    }

    @Test
    void oneBigPsumIsNotTiled() {
        rejected(Kind.STRUCTURE, "each psum should reduce one output tile", () -> Problem3Checks.allReduceMatmul(
                (a, w, tiles) -> allReduce(a, w, (x, v) -> psum(x.matmul(v), "Y")), BOOK));
    }

    @Test
    void reducingTheWholeProductPerTileSendsTooMuch() {
        rejected(Kind.STRUCTURE, "each psum should reduce one output tile", () -> Problem3Checks.allReduceMatmul(
                (a, w, tiles) -> allReduce(a, w, (x, v) -> {
                    NDArray full = x.matmul(v);
                    int t = v.shape(1) / tiles;
                    List<NDArray> out = new ArrayList<>();
                    for (int j = 0; j < tiles; j++) {
                        out.add(psum(full, "Y").slice(1, j * t, (j + 1) * t));
                    }
                    return NDArray.concat(1, out);
                }), BOOK));
    }

    @Test
    void multiplyingEverythingBeforeReducingTilesDoesNotOverlap() {
        rejected(Kind.STRUCTURE, "compute one output tile at a time", () -> Problem3Checks.allReduceMatmul(
                (a, w, tiles) -> allReduce(a, w, (x, v) -> {
                    NDArray full = x.matmul(v);
                    int t = v.shape(1) / tiles;
                    List<NDArray> out = new ArrayList<>();
                    for (int j = 0; j < tiles; j++) {
                        out.add(psum(full.slice(1, j * t, (j + 1) * t), "Y"));
                    }
                    return NDArray.concat(1, out);
                }), BOOK));
    }

    // ------------------------------------------------------------------------------------------------- 3.2

    private static BinaryOperator<ShardedArray> rowsY(java.util.function.BinaryOperator<NDArray> body) {
        return (t, w) -> shardMap(body, t.mesh(), P("X", "Y"), P("Y", null), P("X", "Y")).apply(t, w);
    }

    @Test
    void aPsumScatterIsNotAReduceScatterCollectiveMatmul() {
        rejected(Kind.STRUCTURE, "this part allows only ppermute over Y", () -> Problem3Checks.reduceScatterMatmul(
                rowsY((t, v) -> psumScatter(t.matmul(v), "Y", 1, TILED)), BOOK));
    }

    @Test
    void passingTheWholePartialProductSendsTooMuch() {
        rejected(Kind.STRUCTURE, "expected one accumulator block", () -> Problem3Checks.reduceScatterMatmul(
                rowsY((t, v) -> {
                    int n = axisSize("Y");
                    int y = axisIndex("Y").intAt();
                    int c = v.shape(1) / n;
                    NDArray mine = t.matmul(v);
                    NDArray acc = mine;
                    for (int k = 1; k < n; k++) {
                        acc = ppermute(acc, "Y", shift(n, 1)).add(mine);
                    }
                    return acc.slice(1, y * c, (y + 1) * c);
                }), BOOK));
    }

    @Test
    void startingTheAccumulatorOnItsOwnerIsWrongValues() {
        rejected(Kind.WRONG_VALUES, "Expected vs actual", () -> Problem3Checks.reduceScatterMatmul(rowsY((t, v) -> {
            int n = axisSize("Y");
            int y = axisIndex("Y").intAt();
            int c = v.shape(1) / n;
            NDArray acc = t.matmul(v.slice(1, y * c, (y + 1) * c));
            for (int k = 1; k < n; k++) {
                acc = ppermute(acc, "Y", shift(n, 1));
                int chunk = Math.floorMod(y - k, n);
                acc = acc.add(t.matmul(v.slice(1, chunk * c, (chunk + 1) * c)));
            }
            return acc;
        }), BOOK));
    }

    // ------------------------------------------------------------------------------------------------- 3.3

    private static ShardedArray block(ShardedArray in, ShardedArray win, ShardedArray wout, ShardMap.DeviceFunction f) {
        return ShardMap.shardMap(f, in.mesh(), List.of(P("X", "Y"), P(null, "Y"), P("Y", null)), List.of(P("X", "Y")))
                .call(in, win, wout).get(0);
    }

    private static final Problem3Checks.Block NAIVE_BLOCK = (in, win, wout) -> block(in, win, wout, b -> List.of(
            psumScatter(allGather(b.get(0), "Y", 1, TILED).matmul(b.get(1)).gelu().matmul(b.get(2)), "Y", 1, TILED)));

    @Test
    void theNaiveBlockIsNotTheCollectiveOne() {
        rejected(Kind.STRUCTURE, "this part allows only ppermute over Y",
                () -> Problem3Checks.transformerBlock(NAIVE_BLOCK, NAIVE_BLOCK, BOOK));
    }

    @Test
    void forgettingTheNonLinearityIsWrongValues() {
        Problem3Checks.Block linear = (in, win, wout) -> block(in, win, wout, b -> List.of(
                psumScatter(allGather(b.get(0), "Y", 1, TILED).matmul(b.get(1)).matmul(b.get(2)), "Y", 1, TILED)));
        rejected(Kind.WRONG_VALUES, "Expected vs actual",
                () -> Problem3Checks.transformerBlock(linear, NAIVE_BLOCK, BOOK));
    }

    // ------------------------------------------------------------------------------------------------- 4.x

    @Test
    void theOneWayVersionIsNotBidirectional() {
        rejected(Kind.STRUCTURE, "a bidirectional version sends in both directions",
                () -> Problem4Checks.allGatherMatmul(DOWN_THE_RING_3_0, BOOK));
    }

    @Test
    void wholeBlocksBothWaysForHalfTheStepsIsAccepted() {
        // The other bidirectional design: whole chunks go both ways for about n/2 steps.
        BinaryOperator<ShardedArray> halfTheSteps = xyAndColsY((x, v) -> {
            int n = axisSize("Y");
            int y = axisIndex("Y").intAt();
            int c = x.shape(1);
            NDArray acc = x.matmul(v.slice(0, y * c, (y + 1) * c));
            NDArray fromBelow = x;
            NDArray fromAbove = x;
            int seen = 1;
            for (int k = 1; seen < n; k++) {
                fromBelow = ppermute(fromBelow, "Y", shift(n, 1)); // chunk y − k
                int lo = Math.floorMod(y - k, n);
                acc = acc.add(fromBelow.matmul(v.slice(0, lo * c, (lo + 1) * c)));
                seen++;
                if (seen < n) {
                    fromAbove = ppermute(fromAbove, "Y", shift(n, -1)); // chunk y + k
                    int hi = Math.floorMod(y + k, n);
                    acc = acc.add(fromAbove.matmul(v.slice(0, hi * c, (hi + 1) * c)));
                    seen++;
                }
            }
            return acc;
        });
        Problem4Checks.allGatherMatmul(halfTheSteps, BOOK);
        Problem4Checks.allGatherMatmul(halfTheSteps, new MatmulCase(MeshSpec.of("X", 1, "Y", 5), 1, 1, 1, 9, 2));
    }

    @Test
    void aPsumIsNotAnAllReduceBuiltFromPermutes() {
        rejected(Kind.STRUCTURE, "this part allows only ppermute over Y", () -> Problem4Checks.allReduceMatmul(
                (a, w) -> allReduce(a, w, (x, v) -> psum(x.matmul(v), "Y")), BOOK));
    }

    @Test
    void replicasThatDisagreeAreCaughtThoughReplicaZeroIsRight() {
        // A psum-free all-reduce where only device y = 0 keeps the sum: the others keep their partial product.
        // With checkVma(false) the host would read replica 0 and see nothing wrong.
        rejected(Kind.WRONG_VALUES, "replica 0 is right", () -> Problem4Checks.allReduceMatmul((a, w) -> shardMap(
                (x, v) -> {
                    int n = axisSize("Y");
                    NDArray partial = x.matmul(v);
                    NDArray sum = partial;
                    NDArray cur = partial;
                    for (int k = 1; k < n; k++) {
                        cur = ppermute(cur, "Y", shift(n, 1));
                        sum = sum.add(cur);
                    }
                    return axisIndex("Y").intAt() == 0 ? sum : partial;
                }, a.mesh(), P("X", "Y"), P("Y", null), P("X", null)).checkVma(false).apply(a, w),
                new MatmulCase(MeshSpec.of("X", 1, "Y", 2), 1, 1, 1, 10, 2)));
    }

    @Test
    void bothAccumulatorHalvesGoingUpIsOneWay() {
        rejected(Kind.STRUCTURE, "a bidirectional version sends in both directions",
                () -> Problem4Checks.reduceScatterMatmul(rowsY((t, v) -> {
                    int n = axisSize("Y");
                    int y = axisIndex("Y").intAt();
                    int c = v.shape(1) / n;
                    int h = c / 2;
                    NDArray[] acc = new NDArray[2];
                    for (int half = 0; half < 2; half++) {
                        int chunk = Math.floorMod(y - 1, n);
                        acc[half] = t.matmul(v.slice(1, chunk * c + half * h, chunk * c + (half + 1) * h));
                    }
                    for (int k = 1; k < n; k++) {
                        int chunk = Math.floorMod(y - 1 - k, n);
                        for (int half = 0; half < 2; half++) {
                            acc[half] = ppermute(acc[half], "Y", shift(n, 1)).add(
                                    t.matmul(v.slice(1, chunk * c + half * h, chunk * c + (half + 1) * h)));
                        }
                    }
                    return NDArray.concat(1, acc[0], acc[1]);
                }), BOOK));
    }

    // --------------------------------------------------------------------------------------- modelled time

    @Test
    void collectingPartialProductsAndSummingThemAtTheEndIsSlower() {
        // Right values and the right communication, but the partial products are stacked and reduced at the end:
        // two passes over memory that the reference's fused accumulation does not make.
        BinaryOperator<ShardedArray> stackThenSum = xyAndColsY((x, v) -> {
            int n = axisSize("Y");
            int y = axisIndex("Y").intAt();
            int c = x.shape(1);
            List<NDArray> parts = new ArrayList<>();
            NDArray cur = x;
            for (int k = 0; k < n; k++) {
                int chunk = Math.floorMod(y - k, n);
                parts.add(cur.matmul(v.slice(0, chunk * c, (chunk + 1) * c)));
                if (k < n - 1) {
                    cur = ppermute(cur, "Y", shift(n, 1));
                }
            }
            return NDArray.stack(0, parts).sum(0);
        });
        GradingFailure f = rejected(Kind.PERFORMANCE, "slower than the reference on the modelled hardware",
                () -> Problem3Checks.allGatherMatmulTime(stackThenSum, NAIVE_3_0));
        assertTrue(f.reason().startsWith("modelled "), f.reason());
        assertTrue(f.getMessage().contains("reference"), f.getMessage());
    }

    @Test
    void aPerformancePartWaitsForItsPartToPass() {
        GradingFailure f = rejected(Kind.STRUCTURE, "Part 3.0 does not pass yet",
                () -> Problem3Checks.allGatherMatmulTime(NAIVE_3_0, NAIVE_3_0));
        assertTrue(f.reason().startsWith("needs part 3.0 first: "), f.reason());
    }

    /** Passes on small cases and returns at once at the sizes the time is measured at. */
    private static BinaryOperator<ShardedArray> earlyAtTheBooksSizes(java.util.function.BinaryOperator<ShardedArray>
                                                                          early) {
        return (a, w) -> a.shape()[0] == Problem3Checks.PERF_B ? early.apply(a, w) : DOWN_THE_RING_3_0.apply(a, w);
    }

    @Test
    void returningAnInputAtTheMeasuredSizesIsNotTimed() {
        GradingFailure f = rejected(Kind.WRONG_SHAPE, "is wrong at the sizes its time is measured at",
                () -> Problem3Checks.allGatherMatmulTime(earlyAtTheBooksSizes((a, w) -> a), NAIVE_3_0));
        assertTrue(f.reason().startsWith("measured run: returned (256, 1024)"), f.reason());
    }

    @Test
    void zerosOfTheRightShapeAtTheMeasuredSizesAreWrongValues() {
        // The measured run used to get all-zero inputs, for which zeros are the right answer.
        GradingFailure f = rejected(Kind.WRONG_VALUES, "where the answer is", () -> Problem3Checks.allGatherMatmulTime(
                earlyAtTheBooksSizes((a, w) -> ShardedArray.devicePut(NDArray.zeros(dev.shardlings.array.DType.FLOAT32,
                        a.shape()[0], w.shape()[1]), a.mesh(), P("X", "Y"))), NAIVE_3_0));
        assertTrue(f.reason().startsWith("measured run: wrong values"), f.reason());
    }

    @Test
    void theRightAnswerComputedOnTheHostAtTheMeasuredSizesIsNotTimed() {
        // Right values, but no device did the work: the model would time nothing.
        GradingFailure f = rejected(Kind.STRUCTURE, "ran no shardMap",
                () -> Problem3Checks.allGatherMatmulTime(earlyAtTheBooksSizes((a, w) -> ShardedArray.devicePut(
                        a.gather().matmul(w.gather()), a.mesh(), P("X", "Y"))), NAIVE_3_0));
        assertEquals("measured run: no shardMap at the book's sizes", f.reason());
        // With a shardMap that does nothing in front, the devices' FLOPs give it away.
        GradingFailure g = rejected(Kind.STRUCTURE, "The work must be done by the devices",
                () -> Problem3Checks.allGatherMatmulTime(earlyAtTheBooksSizes((a, w) -> {
                    shardMap(x -> x, a.mesh(), P("X", "Y"), P("X", "Y")).apply(a);
                    return ShardedArray.devicePut(a.gather().matmul(w.gather()), a.mesh(), P("X", "Y"));
                }), NAIVE_3_0));
        assertTrue(g.reason().contains("matmul FLOPs"), g.reason());
    }

    /**
     * Found by a red-team review: the devices read each other's blocks through references the host took before the
     * shardMap (views: nothing is allocated), so the answer is right with no collective at all, and its modelled time
     * was its compute alone (6.8 µs against the reference's 12.5). Every device must receive what the other devices
     * of its row hold.
     */
    @Test
    void devicesReadingEachOthersBlocksWithoutACollectiveAreNotTimed() {
        GradingFailure f = rejected(Kind.STRUCTURE, "Data reaches a device only through collectives",
                () -> Problem3Checks.allGatherMatmulTime(earlyAtTheBooksSizes((a, w) -> {
                    java.util.TreeMap<Integer, java.util.TreeMap<Integer, NDArray>> rows = new java.util.TreeMap<>();
                    for (ShardedArray.Shard sh : a.addressableShards()) {
                        rows.computeIfAbsent(sh.index().slices().get(0).start(), k -> new java.util.TreeMap<>())
                                .put(sh.index().slices().get(1).start(), sh.data());
                    }
                    List<List<NDArray>> byX = new java.util.ArrayList<>();
                    for (java.util.TreeMap<Integer, NDArray> r : rows.values()) {
                        byX.add(new java.util.ArrayList<>(r.values()));
                    }
                    return shardMap((x, v) -> NDArray.concat(1, byX.get(dev.shardlings.spmd.Collectives.axisIndex("X")
                            .intAt())).matmul(v), a.mesh(), P("X", "Y"), P(null, "Y"), P("X", "Y")).apply(a, w);
                }), NAIVE_3_0));
        assertTrue(f.reason().startsWith("measured run: device "), f.reason());
        assertTrue(f.reason().contains("received 0 of the"), f.reason());
    }

    // ------------------------------------------------------------------ the measured run's sample is unpredictable

    /**
     * The 24 positions the measured run used to compare: drawn from {@code new Random(part.number().hashCode())},
     * which any code can compute, 6 columns in each of 4 rows (the first, the last, two at random).
     */
    private static Set<Long> theOldSample(Part part, int rows, int cols) {
        Random r = new Random(part.number().hashCode());
        Set<Long> at = new HashSet<>();
        for (int s = 0; s < 4; s++) {
            int row = s == 0 ? 0 : s == 1 ? rows - 1 : r.nextInt(rows);
            for (int i = 0; i < 6; i++) {
                int col = i == 0 && s == 0 ? 0 : i == 0 && s == 1 ? cols - 1 : r.nextInt(cols);
                at.add((long) row * cols + col);
            }
        }
        return at;
    }

    /**
     * At the measured sizes: the right answer, computed on the devices (right FLOPs, a shardMap, nothing whole on
     * the host), then made wrong everywhere but at {@code kept} (row · cols + col). Right at a set of positions it
     * can compute, and only there.
     */
    private static ShardedArray rightOnlyAt(Set<Long> kept, ShardedArray right) {
        float[] v = right.gather().toFloatArray();
        for (int i = 0; i < v.length; i++) {
            if (!kept.contains((long) i)) {
                v[i] += 1;
            }
        }
        return ShardedArray.devicePut(NDArray.fromFloats(v, right.shape()), right.mesh(), right.spec());
    }

    /** A right 3.2 written with the accumulator of chunk q starting on device q + 1 and going up the ring. */
    private static final BinaryOperator<ShardedArray> UP_THE_RING_3_2 = rowsY((t, v) -> {
        int n = axisSize("Y");
        int y = axisIndex("Y").intAt();
        int c = v.shape(1) / n;
        NDArray acc = null;
        for (int k = 0; k < n; k++) {
            int chunk = Math.floorMod(y - 1 - k, n);
            NDArray mine = t.matmul(v.slice(1, chunk * c, (chunk + 1) * c));
            acc = k == 0 ? mine : ppermute(acc, "Y", shift(n, 1)).add(mine);
        }
        return acc;
    });

    @Test
    void rightOnlyAtTheOldPredictableSampleIsWrongValuesIn30p() {
        Set<Long> kept = theOldSample(Problem3Checks.P3_0P, Problem3Checks.PERF_B, Problem3Checks.PERF_F);
        GradingFailure f = rejected(Kind.WRONG_VALUES, "drawn at random for every grade",
                () -> Problem3Checks.allGatherMatmulTime(earlyAtTheBooksSizes((a, w) -> rightOnlyAt(kept,
                        DOWN_THE_RING_3_0.apply(a, w))), NAIVE_3_0));
        assertTrue(f.reason().startsWith("measured run: wrong values at the book's sizes ("), f.reason());
        // All but the few sampled elements that happen to be old ones are wrong.
        assertTrue(f.reason().matches(".*\\((49[0-9]|50[0-9]|51[0-2]) of the 512 elements compared.*"), f.reason());
    }

    @Test
    void rightOnlyAtTheOldPredictableSampleIsWrongValuesIn32p() {
        Set<Long> kept = theOldSample(Problem3Checks.P3_2P, Problem3Checks.PERF_B, Problem3Checks.PERF_D);
        BinaryOperator<ShardedArray> attack = (t, w) -> t.shape()[0] == Problem3Checks.PERF_B
                ? rightOnlyAt(kept, UP_THE_RING_3_2.apply(t, w)) : UP_THE_RING_3_2.apply(t, w);
        GradingFailure f = rejected(Kind.WRONG_VALUES, "drawn at random for every grade",
                () -> Problem3Checks.reduceScatterMatmulTime(attack));
        assertTrue(f.reason().startsWith("measured run: wrong values at the book's sizes ("), f.reason());
    }

    @Test
    void aRightAnswerPassesWhicheverInputsAndPositionsAreDrawn() {
        // Fresh inputs and positions every run; the same right program is timed the same every time.
        double first = Problem3Checks.reduceScatterMatmulTime(UP_THE_RING_3_2).micros();
        assertEquals(first, Problem3Checks.reduceScatterMatmulTime(UP_THE_RING_3_2).micros());
    }

    @Test
    void replicasThatDisagreeAtTheMeasuredSizesAreWrongValues() {
        // 3.1p's answer is replicated over Y. At the measured sizes only replica 0 (device y = 0) keeps the psum;
        // the host, reading replica 0, would see the right answer.
        Problem3Checks.Tiled tiled = (a, w, tiles) -> {
            boolean measured = a.shape()[0] == Problem3Checks.PERF_B;
            return shardMap((x, v) -> {
                int t = v.shape(1) / tiles;
                List<NDArray> out = new ArrayList<>();
                for (int j = 0; j < tiles; j++) {
                    NDArray partial = x.matmul(v.slice(1, j * t, (j + 1) * t));
                    NDArray sum = psum(partial, "Y");
                    out.add(measured && axisIndex("Y").intAt() != 0 ? partial : sum);
                }
                return NDArray.concat(1, out);
            }, a.mesh(), P("X", "Y"), P("Y", null), P("X", null)).checkVma(false).apply(a, w);
        };
        GradingFailure f = rejected(Kind.WRONG_VALUES, "where replica 0 holds the answer",
                () -> Problem3Checks.allReduceMatmulTime(tiled));
        assertTrue(f.reason().startsWith("measured run: replicas disagree at the book's sizes: device "), f.reason());
    }

    @Test
    void theSampleVisitsEveryBandOfRowsAndDiffersFromDrawToDraw() {
        java.util.random.RandomGenerator r = new java.security.SecureRandom();
        MeasuredRun.Sample a = MeasuredRun.Sample.draw(r, 256, 8192);
        MeasuredRun.Sample b = MeasuredRun.Sample.draw(r, 256, 8192);
        assertEquals(MeasuredRun.SAMPLE_ROWS, a.rows().length);
        assertEquals(0, a.rows()[0]);
        assertEquals(255, a.rows()[MeasuredRun.SAMPLE_ROWS - 1]);
        int bands = MeasuredRun.SAMPLE_ROWS - 2;
        for (int i = 1; i <= bands; i++) {
            int row = a.rows()[i];
            assertTrue(row >= (i - 1) * 256 / bands && row < i * 256 / bands, "row " + row + " in band " + i);
        }
        for (int[] cols : a.cols()) {
            assertEquals(MeasuredRun.SAMPLE_COLS, java.util.Arrays.stream(cols).distinct().count());
        }
        assertEquals(0, a.cols()[0][0]);
        assertEquals(8191, a.cols()[MeasuredRun.SAMPLE_ROWS - 1][MeasuredRun.SAMPLE_COLS - 1]);
        assertFalse(java.util.Arrays.deepEquals(a.cols(), b.cols()), "two draws differ");
    }
}
