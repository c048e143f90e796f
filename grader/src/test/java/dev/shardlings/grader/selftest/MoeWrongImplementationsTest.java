package dev.shardlings.grader.selftest;

import dev.shardlings.array.DType;
import dev.shardlings.array.NDArray;
import dev.shardlings.grader.judge.GradingFailure;
import dev.shardlings.grader.judge.GradingFailure.Kind;
import dev.shardlings.grader.checks.MeshSpec;
import dev.shardlings.grader.problem2.MoeCase;
import dev.shardlings.grader.problem2.Problem2Checks;
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
import static dev.shardlings.spmd.Collectives.allToAll;
import static dev.shardlings.spmd.Collectives.axisIndex;
import static dev.shardlings.spmd.Collectives.axisSize;
import static dev.shardlings.spmd.Collectives.pmax;
import static dev.shardlings.spmd.Collectives.psumScatter;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Mixture-of-experts implementations written here, independently of solutions/: one right way per part that the
 * checks accept, and deliberately wrong ones each rejected for the right reason.
 */
class MoeWrongImplementationsTest {

    private static final MoeCase BOOK = new MoeCase(MeshSpec.of("X", 2, "Y", 2), 2, 4, 1, 2, 1, UNIFORM, 1, 7);
    private static final MoeCase TOP2 = new MoeCase(MeshSpec.of("X", 2, "Y", 2), 2, 3, 1, 2, 2, UNIFORM, 2, 8);

    private static GradingFailure rejected(Kind kind, String inMessage, Executable check) {
        GradingFailure f = Pinned.record(assertThrows(GradingFailure.class, check));
        assertEquals(kind, f.kind(), () -> "rejected for another reason: " + f.reason() + "\n" + f.getMessage());
        assertTrue(f.getMessage().contains(inMessage), () -> "report lacks \"" + inMessage + "\":\n" + f.getMessage());
        return f;
    }

    /** Token by token: row i times expert b[i] (experts[i] = −1: zeros). Allocates one [D, F] copy per token. */
    private static NDArray perToken(NDArray tokens, int[] experts, NDArray w) {
        List<NDArray> rows = new ArrayList<>();
        for (int i = 0; i < experts.length; i++) {
            rows.add(experts[i] < 0 ? NDArray.zeros(DType.FLOAT32, 1, w.shape(2))
                    : tokens.slice(0, i, i + 1).matmul(w.take(0, experts[i])));
        }
        return NDArray.concat(0, rows);
    }

    @Test
    void tokenByTokenIsRejectedLocally() {
        // The task says to multiply each expert's group once; a matmul per token passes values only.
        rejected(Kind.STRUCTURE, "not one token at a time", () -> Problem2Checks.moeLocal(
                (a, w, b) -> perToken(a, b.toIntArray(), w), BOOK));
    }

    @Test
    void theBooksMaskedBufferIsRejectedLocally() {
        // Tokens sorted into an [E, S, D] buffer, zero rows where a token is not an expert's; every expert then
        // multiplies all S rows (E× the FLOPs the task allows) and the products [E, S, F] are summed.
        rejected(Kind.STRUCTURE, "costs E times as much", () -> Problem2Checks.moeLocal((a, w, b) -> {
            int s = a.shape(0);
            int e = w.shape(0);
            int[] route = b.toIntArray();
            NDArray withZero = NDArray.concat(0, a, NDArray.zeros(DType.FLOAT32, 1, a.shape(1)));
            List<NDArray> buffers = new ArrayList<>();
            for (int x = 0; x < e; x++) {
                int[] rows = new int[s];
                for (int i = 0; i < s; i++) {
                    rows[i] = route[i] == x ? i : s;
                }
                buffers.add(withZero.take(NDArray.fromInts(rows, s), 0));
            }
            NDArray buffer = NDArray.stack(0, buffers);                                     // [E, S, D]
            List<NDArray> products = new ArrayList<>();
            for (int x = 0; x < e; x++) {
                products.add(buffer.take(0, x).matmul(w.take(0, x)));
            }
            return NDArray.stack(0, products).sum(0);                                       // via [E, S, F]
        }, BOOK));
    }

    @Test
    void everyTokenWithItsOwnExpertCopyIsTooMuchMemory() {
        rejected(Kind.STRUCTURE, "materialises an array as large as [S, D, F]", () -> Problem2Checks.moeLocal(
                (a, w, b) -> {
                    NDArray perTokenW = w.take(b, 0);                                  // [S, D, F]
                    List<NDArray> rows = new ArrayList<>();
                    for (int i = 0; i < a.shape(0); i++) {
                        rows.add(a.slice(0, i, i + 1).matmul(perTokenW.take(0, i)));
                    }
                    return NDArray.concat(0, rows);
                }, BOOK));
    }

    @Test
    void ignoringTheRoutingIsWrongValues() {
        rejected(Kind.WRONG_VALUES, "Expected vs actual", () -> Problem2Checks.moeLocal(
                (a, w, b) -> a.matmul(w.take(0, 0)), BOOK));
    }

    // ------------------------------------------------------------------------------------------------ sharded

    private static ShardedArray sharded(ShardedArray a, ShardedArray w, ShardedArray b, ShardMap.DeviceFunction f) {
        return ShardMap.shardMap(f, a.mesh(), List.of(P("X", "Y"), P("X", null, "Y"), b.rank() == 1 ? P("X")
                : P("X", null)), List.of(P("X", "Y"))).call(a, w, b).get(0);
    }

    /** 2.3a, written here: gather everything, compute your experts' tokens, reduce-scatter over X. */
    private static final Problem2Checks.Sharded GATHER = (a, w, b) -> sharded(a, w, b, blk -> {
        NDArray all = allGather(allGather(blk.get(0), "Y", 1, TILED), "X", 0, TILED);
        int[] route = allGather(blk.get(2), "X", 0, TILED).toIntArray();
        int per = blk.get(1).shape(0);
        int first = axisIndex("X").intAt() * per;
        int[] local = new int[route.length];
        for (int i = 0; i < route.length; i++) {
            local[i] = route[i] >= first && route[i] < first + per ? route[i] - first : -1;
        }
        return List.of(psumScatter(perToken(all, local, blk.get(1)), "X", 0, TILED));
    });

    @Test
    void gatheringIsAcceptedFor23a() {
        Problem2Checks.moeAllGather(GATHER, BOOK);
    }

    @Test
    void onlyTheLocalTokensIsWrongValues() {
        rejected(Kind.WRONG_VALUES, "Expected vs actual", () -> Problem2Checks.moeAllGather((a, w, b) -> sharded(a,
                w, b, blk -> {
                    NDArray mine = allGather(blk.get(0), "Y", 1, TILED);
                    int[] route = blk.get(2).toIntArray();
                    int per = blk.get(1).shape(0);
                    int[] local = new int[route.length];
                    for (int i = 0; i < route.length; i++) {
                        local[i] = Math.floorMod(route[i], per); // as if every expert were here
                    }
                    return List.of(perToken(mine, local, blk.get(1)));
                }), BOOK));
    }

    /**
     * 2.3b written here, with switches for the mistakes: multiply the padding rows too, or send everything in one
     * round whatever the capacity.
     */
    private static Problem2Checks.Ragged ragged(boolean padCompute, boolean oneRound) {
        return (a, w, b, capacity) -> sharded(a, w, b, blk -> {
            NDArray tokens = allGather(blk.get(0), "Y", 1, TILED);
            int[] route = blk.get(2).toIntArray();
            NDArray wl = blk.get(1);
            int x = axisSize("X");
            int per = wl.shape(0);
            int n = route.length;
            int cap = oneRound ? n : capacity;
            List<List<Integer>> byDest = new ArrayList<>();
            for (int dst = 0; dst < x; dst++) {
                byDest.add(new ArrayList<>());
            }
            for (int r = 0; r < n; r++) {
                byDest.get(route[r] / per).add(r);
            }
            int most = byDest.stream().mapToInt(List::size).max().orElse(0);
            int rounds = (pmax(NDArray.scalar(most), "X").intAt() + cap - 1) / cap;
            NDArray out = NDArray.zeros(DType.FLOAT32, n, wl.shape(2));
            for (int round = 0; round < rounds; round++) {
                int[] rows = new int[x * cap];
                int[] ids = new int[x * cap];
                int[] slot = new int[n];
                java.util.Arrays.fill(slot, x * cap);
                for (int dst = 0; dst < x; dst++) {
                    for (int c = 0; c < cap; c++) {
                        int i = round * cap + c;
                        int s = dst * cap + c;
                        List<Integer> l = byDest.get(dst);
                        rows[s] = i < l.size() ? l.get(i) : n;
                        ids[s] = i < l.size() ? route[l.get(i)] % per : (padCompute ? 0 : -1);
                        if (i < l.size()) {
                            slot[l.get(i)] = s;
                        }
                    }
                }
                NDArray padded = NDArray.concat(0, tokens, NDArray.zeros(DType.FLOAT32, 1, tokens.shape(1)));
                NDArray got = allToAll(padded.take(NDArray.fromInts(rows, rows.length), 0), "X", 0, 0, TILED);
                int[] gotIds = allToAll(NDArray.fromInts(ids, ids.length), "X", 0, 0, TILED).toIntArray();
                NDArray back = allToAll(perToken(got, gotIds, wl), "X", 0, 0, TILED);
                NDArray withZero = NDArray.concat(0, back, NDArray.zeros(DType.FLOAT32, 1, wl.shape(2)));
                out = out.add(withZero.take(NDArray.fromInts(slot, n), 0));
            }
            return List.of(out);
        });
    }

    @Test
    void aRaggedAllToAllWrittenHereIsAccepted() {
        Problem2Checks.moeAllToAll(ragged(false, false), BOOK);
        Problem2Checks.moeAllToAll(ragged(false, false), new MoeCase(MeshSpec.of("X", 4, "Y", 1), 1, 3, 2, 1, 1,
                MoeCase.Routing.ONE_EXPERT, 1, 9));
    }

    @Test
    void gatheringTokensOverXIsNotAnAllToAll() {
        rejected(Kind.STRUCTURE, "never gathers tokens over X",
                () -> Problem2Checks.moeAllToAll((a, w, b, cap) -> GATHER.apply(a, w, b), BOOK));
    }

    @Test
    void multiplyingThePaddingIsWastedCompute() {
        // Zero rows times expert 0 leave the values right, but cost FLOPs.
        rejected(Kind.STRUCTURE, "padding rows must not be multiplied",
                () -> Problem2Checks.moeAllToAll(ragged(true, false), BOOK));
    }

    @Test
    void ignoringTheCapacityBreaksTheMemoryBudget() {
        GradingFailure f = rejected(Kind.STRUCTURE, "the budget is",
                () -> Problem2Checks.moeAllToAll(ragged(false, true), new MoeCase(MeshSpec.of("X", 4, "Y", 1), 1, 4,
                        1, 1, 1, MoeCase.Routing.ONE_EXPERT, 1, 10)));
        assertTrue(f.reason().contains("bounded memory"), f.reason());
    }

    // ------------------------------------------------------------------------------------------------- top-k

    @Test
    void summingInsteadOfAveragingIsWrongValues() {
        rejected(Kind.WRONG_VALUES, "Expected vs actual", () -> Problem2Checks.topK((a, w, b) -> {
            int s = b.shape(0);
            int k = b.shape(1);
            int[] rows = new int[s * k];
            for (int i = 0; i < rows.length; i++) {
                rows[i] = i / k;
            }
            return perToken(a.take(NDArray.fromInts(rows, rows.length), 0), b.toIntArray(), w)
                    .reshape(s, k, w.shape(2)).sum(1);
        }, (a, w, b, cap) -> {
            throw new AssertionError("not reached: the local half fails first");
        }, TOP2));
    }
    // ------------------------------------------------------------------------------------------ 2.2, jit

    private static dev.shardlings.jit.Jitted denseMoe(int experts) {
        return dev.shardlings.jit.Jit.jitList(xs -> {
            ShardedArray onehot = xs.get(2).oneHot(experts);
            ShardedArray buffer = ShardedArray.einsum("se,sd->esd", onehot, xs.get(0));
            return List.of(ShardedArray.einsum("se,esf->sf", onehot,
                    ShardedArray.einsum("esd,edf->esf", buffer, xs.get(1))));
        }).outShardings(P("X", "Y"));
    }

    private static ShardedArray moeJit(ShardedArray a, ShardedArray w, ShardedArray b) {
        return denseMoe(w.shape()[0]).call(a, w, b).get(0);
    }

    @Test
    void aJittedMoeIsRightAndItsReportIsTheCompiledProgramsBytes() throws Throwable {
        Problem2Checks.moeJit(MoeWrongImplementationsTest::moeJit, (a, w, b) -> Math.toIntExact(
                denseMoe(w.shape()[0]).lower(a, w, b).costAnalysis().bytesReceivedPerDevice()), BOOK);
    }

    @Test
    void reportingTheBytesOfAllDevicesTogetherIsWrong() {
        GradingFailure f = rejected(Kind.WRONG_VALUES, "What the program moeJit compiled did", () ->
                Problem2Checks.moeJit(MoeWrongImplementationsTest::moeJit, (a, w, b) -> Math.toIntExact(
                        denseMoe(w.shape()[0]).lower(a, w, b).costAnalysis().bytesReceivedPerDevice() * a.mesh().size()),
                        BOOK));
        assertTrue(f.getMessage().contains("bytes one device receives"), f.getMessage());
    }

    @Test
    void aGuessedFigureIsWrong() {
        rejected(Kind.WRONG_VALUES, "reports 0 bytes received per device", () ->
                Problem2Checks.moeJit(MoeWrongImplementationsTest::moeJit, (a, w, b) -> 0, BOOK));
    }

    @Test
    void theMaskedBufferComputedEagerlyIsNotACompiledProgram() {
        rejected(Kind.STRUCTURE, "never calls a jitted function", () -> Problem2Checks.moeJit((a, w, b) -> {
            ShardedArray onehot = b.oneHot(w.shape()[0]);
            ShardedArray buffer = ShardedArray.einsum("se,sd->esd", onehot, a);
            return ShardedArray.einsum("se,esf->sf", onehot, ShardedArray.einsum("esd,edf->esf", buffer, w))
                    .reshard(P("X", "Y"));
        }, (a, w, b) -> 0, BOOK));
    }

    @Test
    void aHandWrittenShardMapIsNotACompiledProgram() {
        rejected(Kind.STRUCTURE, "writes a shardMap", () -> Problem2Checks.moeJit((a, w, b) ->
                ShardMap.shardMap(x -> x, a.mesh(), P("X", "Y"), P("X", "Y")).apply(a), (a, w, b) -> 0, BOOK));
    }
}
