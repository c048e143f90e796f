package dev.shardlings.grader.selftest;

import dev.shardlings.array.KeepDims;
import dev.shardlings.array.DType;
import dev.shardlings.array.NDArray;
import dev.shardlings.grader.judge.GradingFailure;
import dev.shardlings.grader.judge.GradingFailure.Kind;
import dev.shardlings.grader.checks.MeshSpec;
import dev.shardlings.grader.chapter0.Chapter0Case;
import dev.shardlings.grader.chapter0.Chapter0Checks;
import dev.shardlings.grader.problem1.Problem1Case;
import dev.shardlings.grader.problem1.Problem1Checks;
import dev.shardlings.grader.problem2.MoeCase;
import dev.shardlings.grader.problem2.Problem2Checks;
import dev.shardlings.grader.problem3.MatmulCase;
import dev.shardlings.grader.problem3.Problem3Checks;
import dev.shardlings.random.PRNG;
import dev.shardlings.spmd.ShardMap;
import dev.shardlings.spmd.ShardedArray;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

import java.util.ArrayList;
import java.util.List;

import static dev.shardlings.spmd.Tiling.TILED;
import static dev.shardlings.grader.problem2.MoeCase.Routing.UNIFORM;
import static dev.shardlings.sharding.PartitionSpec.P;
import static dev.shardlings.spmd.Collectives.allGather;
import static dev.shardlings.spmd.Collectives.axisIndex;
import static dev.shardlings.spmd.Collectives.pmean;
import static dev.shardlings.spmd.Collectives.psum;
import static dev.shardlings.spmd.Collectives.psumScatter;
import static dev.shardlings.spmd.ShardMap.shardMap;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The classes of wrong code that once passed (issue "Grader precision and JAX conformance"), each written here as a
 * plausible submission and rejected for the right reason: gathering inside the shardMap body, the opposite design
 * behind "some all-gather", dense or per-token compute where the task fixes the algorithm, a host computation
 * where the task asks for a shardMap program, and a serialized design where the task asks for overlap.
 */
class PrecisionGapsTest {

    private static final Problem1Case P1 = new Problem1Case(2, 2, 2, 2, 7, 1, DType.FLOAT32);
    private static final MoeCase MOE = new MoeCase(MeshSpec.of("X", 2, "Y", 2), 2, 4, 1, 2, 1, UNIFORM, 1, 7);
    private static final Chapter0Case X4 = new Chapter0Case(MeshSpec.of("X", 4, "Y", 2), 2, 2, 3, 5, 0);

    private static GradingFailure rejected(Kind kind, String inMessage, Executable check) {
        GradingFailure f = Pinned.record(assertThrows(GradingFailure.class, check));
        assertEquals(kind, f.kind(), () -> "rejected for another reason: " + f.reason() + "\n" + f.getMessage());
        assertTrue(f.getMessage().contains(inMessage), () -> "report lacks \"" + inMessage + "\":\n" + f.getMessage());
        return f;
    }

    // ------------------------------------------------------------------- 1. gathering inside the shardMap body

    @Test
    void gatheringACapturedArrayInsideTheBodyIsRefused() {
        // The device reads the whole captured array and slices out its own block: the framework refuses the read.
        rejected(Kind.EXCEPTION, "ShardedArray.gather() was called inside the function passed to shardMap",
                () -> Problem1Checks.perShardMean(a -> shardMap(block -> {
                    NDArray whole = a.gather();
                    int x = axisIndex("X").intAt();
                    int y = axisIndex("Y").intAt();
                    int r = block.shape(0);
                    int c = block.shape(1);
                    return whole.slice(0, x * r, (x + 1) * r).slice(1, y * c, (y + 1) * c).mean(KeepDims.KEEP);
                }, a.mesh(), P("X", "Y"), P("X", "Y")).apply(a), P1));
    }

    @Test
    void assemblingCapturedBlocksOnADeviceIsACapture() {
        // Blocks read on the host (no whole array there), put together on every device: before any part's rule
        // (it also makes an array as large as the whole input), the devices read arrays no argument brought them.
        rejected(Kind.STRUCTURE, "it read 2 array(s) it was neither handed, nor made, nor received by a collective",
                () -> Problem1Checks.perShardMean(a -> {
            List<NDArray> rows = new ArrayList<>();
            int nx = a.mesh().axisSize("X");
            int ny = a.mesh().axisSize("Y");
            List<NDArray> blocks = a.blocks();
            for (int x = 0; x < nx; x++) {
                List<NDArray> row = new ArrayList<>();
                for (int y = 0; y < ny; y++) {
                    row.add(blocks.get(x * ny + y));
                }
                rows.add(NDArray.concat(1, row));
            }
            return shardMap(block -> {
                NDArray whole = NDArray.concat(0, rows);
                int x = axisIndex("X").intAt();
                int y = axisIndex("Y").intAt();
                int r = block.shape(0);
                int c = block.shape(1);
                return whole.slice(0, x * r, (x + 1) * r).slice(1, y * c, (y + 1) * c).mean(KeepDims.KEEP);
            }, a.mesh(), P("X", "Y"), P("X", "Y")).apply(a);
        }, P1));
    }

    // ---------------------------------------------------------------------- 2. which array, and how much compute

    @Test
    void gatheringTheExpertsInsteadOfTheTokensIsRejected() {
        // Every device gathers all experts (W over X) and computes its own tokens: right values, opposite design.
        rejected(Kind.STRUCTURE, "shape of an expert block", () -> Problem2Checks.moeAllGather((a, w, b) ->
                ShardMap.shardMap(blk -> {
                    NDArray tokens = allGather(blk.get(0), "Y", 1, TILED);           // [S/X, D]
                    NDArray experts = allGather(blk.get(1), "X", 0, TILED);          // [E, D, F/Y]
                    int[] route = blk.get(2).toIntArray();
                    List<NDArray> rows = new ArrayList<>();
                    for (int i = 0; i < route.length; i++) {
                        rows.add(tokens.slice(0, i, i + 1).matmul(experts.take(0, route[i])));
                    }
                    return List.of(NDArray.concat(0, rows));
                }, a.mesh(), List.of(P("X", "Y"), P("X", null, "Y"), P("X")), List.of(P("X", "Y")))
                        .call(a, w, b).get(0), MOE));
    }

    @Test
    void everyTokenThroughEveryLocalExpertIsTooManyFlops() {
        // Gathers the tokens as asked, but multiplies all S tokens by each local expert and masks afterwards.
        rejected(Kind.STRUCTURE, "multiply only the tokens routed to this device's experts",
                () -> Problem2Checks.moeAllGather((a, w, b) -> ShardMap.shardMap(blk -> {
                    NDArray all = allGather(allGather(blk.get(0), "Y", 1, TILED), "X", 0, TILED);
                    int[] route = allGather(blk.get(2), "X", 0, TILED).toIntArray();
                    NDArray wl = blk.get(1);
                    int first = axisIndex("X").intAt() * wl.shape(0);
                    NDArray out = null;
                    for (int e = 0; e < wl.shape(0); e++) {
                        float[] mask = new float[route.length];
                        for (int i = 0; i < route.length; i++) {
                            mask[i] = route[i] == first + e ? 1f : 0f;
                        }
                        NDArray masked = all.matmul(wl.take(0, e))
                                .mul(NDArray.fromFloats(mask, route.length, 1));
                        out = out == null ? masked : out.add(masked);
                    }
                    return List.of(psumScatter(out, "X", 0, TILED));
                }, a.mesh(), List.of(P("X", "Y"), P("X", null, "Y"), P("X")), List.of(P("X", "Y")))
                        .call(a, w, b).get(0), MOE));
    }

    @Test
    void denseMaskedComputeIsRejectedLocally() {
        // Every token through every expert, then the wanted product picked by a mask: E× the FLOPs.
        rejected(Kind.STRUCTURE, "costs E times as much", () -> Problem2Checks.moeLocal((a, w, b) -> {
            int[] route = b.toIntArray();
            NDArray out = null;
            for (int e = 0; e < w.shape(0); e++) {
                float[] mask = new float[route.length];
                for (int i = 0; i < route.length; i++) {
                    mask[i] = route[i] == e ? 1f : 0f;
                }
                NDArray masked = a.matmul(w.take(0, e)).mul(NDArray.fromFloats(mask, route.length, 1));
                out = out == null ? masked : out.add(masked);
            }
            return out;
        }, MOE));
    }

    @Test
    void oneMatmulPerTokenIsRejectedLocally() {
        rejected(Kind.STRUCTURE, "not one token at a time", () -> Problem2Checks.moeLocal((a, w, b) -> {
            int[] route = b.toIntArray();
            List<NDArray> rows = new ArrayList<>();
            for (int i = 0; i < route.length; i++) {
                rows.add(a.slice(0, i, i + 1).matmul(w.take(0, route[i])));
            }
            return NDArray.concat(0, rows);
        }, new MoeCase(MeshSpec.of("X", 1, "Y", 1), 2, 6, 1, 2, 1, UNIFORM, 1, 9)));
    }

    @Test
    void multiplyingByAHostGatheredOperandIsTooManyFlops() {
        // 0.1: every device multiplies the whole A (gathered on the host and captured) by its B block, then slices.
        rejected(Kind.STRUCTURE, "FLOPs", () -> Chapter0Checks.noCommunication((a, b) -> {
            NDArray wholeA = a.gather();
            return shardMap(blk -> {
                int x = axisIndex("X").intAt();
                int r = wholeA.shape(0) / a.mesh().axisSize("X");
                return wholeA.matmul(blk).slice(0, x * r, (x + 1) * r);
            }, a.mesh(), P(null, "Y"), P("X", "Y")).apply(b);
        }, X4));
    }

    @Test
    void reducingTheWholeBlockInsteadOfRowStatisticsIsRejected() {
        // 0.6: averages each block with the others over j (one pmean of the block), then normalises locally: the
        // values are wrong anyway; pmean of the whole block is also more communication than the statistics.
        rejected(Kind.STRUCTURE, "reduce the per-row statistics", () -> Chapter0Checks.normalize(x -> shardMap(
                block -> {
                    NDArray gathered = pmean(block, "j");                             // [rows, D/j], a whole block
                    NDArray mean = pmean(block.mean(KeepDims.KEEP, 1), "j");
                    NDArray var = pmean(block.sub(mean).square().mean(KeepDims.KEEP, 1), "j");
                    return block.sub(mean).div(var.add(1e-5f).sqrt()).add(gathered.mul(0f));
                }, x.mesh(), P("i", "j"), P("i", "j")).apply(x),
                new Chapter0Case(MeshSpec.of("i", 2, "j", 2), 2, 3, 1, 4, 0)));
    }

    // ------------------------------------------------------------------------- 3. requirements stated, unchecked

    @Test
    void aHostComputationPlacedWithDevicePutIsNotAShardMapProgram() {
        // 0.10: the keys computed on the host and placed on the mesh: right values, no per-device program.
        rejected(Kind.STRUCTURE, "never calls shardMap", () -> Chapter0Checks.foldKey((key, mesh) -> {
            int n = mesh.axisSize("i");
            NDArray[] rows = new NDArray[n];
            for (int r = 0; r < n; r++) {
                rows[r] = PRNG.foldIn(PRNG.Key.of(key), r).toArray();
            }
            return ShardedArray.devicePut(NDArray.stack(0, rows), mesh, P("i", null));
        }, new Chapter0Case(MeshSpec.of("i", 4, "j", 2), 1, 1, 1, 3, 0)));
    }

    @Test
    void reducingSlicesOfAllProductsIsNotOverlapped() {
        // 3.1 serialized: every tile's product first, put together, then one psum per slice of the concatenation.
        // Every psum waits for every matmul, so no reduction overlaps a matmul.
        rejected(Kind.STRUCTURE, "cannot start before all of them are done", () -> Problem3Checks.allReduceMatmul(
                (a, w, tiles) -> shardMap((x, wb) -> {
                    int ft = wb.shape(1) / tiles;
                    List<NDArray> products = new ArrayList<>();
                    for (int t = 0; t < tiles; t++) {
                        products.add(x.matmul(wb.slice(1, t * ft, (t + 1) * ft)));
                    }
                    NDArray all = NDArray.concat(1, products);
                    List<NDArray> reduced = new ArrayList<>();
                    for (int t = 0; t < tiles; t++) {
                        reduced.add(psum(all.slice(1, t * ft, (t + 1) * ft), "Y"));
                    }
                    return NDArray.concat(1, reduced);
                }, a.mesh(), P("X", "Y"), P("Y", null), P("X", null)).apply(a, w),
                new MatmulCase(MeshSpec.of("X", 2, "Y", 4), 1, 2, 2, 7, 2)));
    }
}
