package dev.shardlings.profiles;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.shardlings.array.DType;
import dev.shardlings.autodiff.Autodiff;
import dev.shardlings.jit.Compiled;
import dev.shardlings.jit.Jit;
import dev.shardlings.jit.ProgramTrace;
import dev.shardlings.nn.Mlp;
import dev.shardlings.sharding.AxisType;
import dev.shardlings.array.NDArray;
import dev.shardlings.cost.CostModel;
import dev.shardlings.cost.CpuCalibration;
import dev.shardlings.cost.HardwareModel;
import dev.shardlings.cost.ModelDtype;
import dev.shardlings.cost.PerfettoTrace;
import dev.shardlings.cost.Timeline;
import dev.shardlings.cost.TimelineSvg;
import dev.shardlings.course.Chapter0;
import dev.shardlings.course.Chapter7;
import dev.shardlings.course.Problem1;
import dev.shardlings.course.Problem2;
import dev.shardlings.course.Problem3;
import dev.shardlings.course.Problem4;
import dev.shardlings.random.PRNG;
import dev.shardlings.sharding.Mesh;
import dev.shardlings.sharding.PartitionSpec;
import dev.shardlings.spmd.ShardedArray;
import dev.shardlings.events.Trace;
import dev.shardlings.events.Tracing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

import static dev.shardlings.sharding.PartitionSpec.P;
import static dev.shardlings.sharding.PartitionSpec.tuple;

/**
 * The instructor's reference profiles: every reference solution run once at the sizes of the book (or of the
 * tutorials, for chapter 0), its trace modelled on each hardware model, and the results written to a directory:
 * <ul>
 *   <li>{@code summary.json}: one entry per problem, variant and hardware model with {@code modelled_us},
 *       {@code wall_ms} (the simulation's own time on this machine), {@code flops},
 *       {@code bytes_communicated} and the paths of its {@code perfetto} trace and {@code svg} picture, plus
 *       the fidelity figures of the book's collective-matmul profile; for the
 *       programs that are lowered and modelled without running (seed 001's full-size training step) also
 *       {@code peak_bytes_per_device} and {@code modelled_without_running};</li>
 *   <li>{@code perfetto/PROBLEM--VARIANT--MODEL.json}: each timeline for ui.perfetto.dev;</li>
 *   <li>{@code svg/PROBLEM--VARIANT--MODEL.svg}: each timeline as a picture;</li>
 *   <li>{@code tables/NAME.md}: the tables docs/profiles.md shows, in Markdown ({@link DocsTables});</li>
 *   <li>{@code index.html}: the page an instructor opens ({@link ProfilePage}).</li>
 * </ul>
 * Run with {@code mvn -B -Pprofile verify} from the root (output in {@code solutions/target/profiles/}), or
 * directly with the output directory as the only argument.
 */
public final class ReferenceProfiles {

    /** The model the pictures and the fidelity check use. */
    static final String PRIMARY = "tpu-v5e";

    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private ReferenceProfiles() {
    }

    /**
     * One program to profile.
     *
     * @param problem the problem, e.g. {@code "all-gather-matmul"}
     * @param variant the variant, e.g. {@code "collective"}
     * @param part    the course part it solves, e.g. {@code "3.0"}
     * @param shapes  the sizes in words
     * @param dtype   the dtype to model
     * @param run     runs the solution once
     */
    record Program(String problem, String variant, String part, String shapes, ModelDtype dtype,
                   Supplier<Object> run, Supplier<Compiled> lowered) {
        /** A program that is run once, recorded and modelled. */
        Program(String problem, String variant, String part, String shapes, ModelDtype dtype, Supplier<Object> run) {
            this(problem, variant, part, shapes, dtype, run, null);
        }

        /**
         * A jitted program that is only lowered and modelled from its per-device program ({@link ProgramTrace}):
         * for sizes this machine should not run.
         */
        static Program lowered(String problem, String variant, String part, String shapes, ModelDtype dtype,
                               Supplier<Compiled> lowered) {
            return new Program(problem, variant, part, shapes, dtype, null, lowered);
        }

        String key() {
            return problem + "--" + variant;
        }
    }

    /**
     * One program on one model; {@code peakBytes} is the most a device holds at once (known for lowered programs,
     * else null).
     */
    record Result(Program program, HardwareModel model, Timeline timeline, double wallMs, Long peakBytes) {
    }

    /**
     * Writes the profiles of every solution to {@code args[0]} (default {@code target/profiles}); {@code args[1]},
     * if given, is the grader's {@code reference-times.json}, whose performance-part settings the page shows.
     */
    public static void main(String[] args) throws IOException {
        Path out = Path.of(args.length > 0 ? args[0] : "target/profiles");
        List<ProfilePage.PerformanceSetting> settings = ProfilePage.PerformanceSetting.read(
                args.length > 1 ? Optional.of(Path.of(args[1])) : Optional.empty());
        List<HardwareModel> models = new ArrayList<>();
        for (String name : HardwareModel.BUILT_IN) {
            models.add(HardwareModel.builtIn(name));
        }
        System.out.println("Calibrating this machine (cpu-local) ...");
        models.add(CpuCalibration.measure());
        write(out, programs(), models, settings);
        System.out.println("Wrote " + out.resolve("index.html").toAbsolutePath());
    }

    /**
     * Runs each program once, models it on each model and writes summary.json, the Perfetto files, the SVG
     * pictures and index.html (which shows the pictures on {@link #PRIMARY} when it is among the models, else on
     * the first model).
     *
     * @throws IOException if a file cannot be written
     */
    static List<Result> write(Path out, List<Program> programs, List<HardwareModel> models,
                              List<ProfilePage.PerformanceSetting> settings) throws IOException {
        String pictured = models.stream().anyMatch(m -> m.name().equals(PRIMARY)) ? PRIMARY : models.get(0).name();
        List<Result> results = new ArrayList<>();
        for (Program p : programs) {
            long t0 = System.nanoTime();
            Trace trace;
            Long peak = null;
            if (p.lowered() != null) {
                Compiled c = p.lowered().get();
                trace = ProgramTrace.of(c);
                peak = ProgramTrace.peakBytes(c);
            } else {
                trace = Tracing.record(p.run()).trace();
            }
            double wall = (System.nanoTime() - t0) / 1e6;
            for (HardwareModel m : models) {
                Timeline tl = CostModel.schedule(trace, m, p.dtype());
                Result r = new Result(p, m, tl, wall, peak);
                results.add(r);
                PerfettoTrace.write(tl, p.problem() + " / " + p.variant(), out.resolve(ProfilePage.trace(r)));
                if (m.name().equals(pictured)) {
                    System.out.printf(Locale.ROOT, "%-24s %-32s %10s on %s (%.0f ms simulated)%n",
                            p.problem(), p.variant(), TimelineSvg.duration(tl.seconds()), m.name(), wall);
                }
            }
        }
        Files.createDirectories(out.resolve("svg"));
        for (Result r : results) {
            Files.writeString(out.resolve(ProfilePage.picture(r)),
                    TimelineSvg.render(r.timeline(), r.program().problem() + " / " + r.program().variant(), 1000));
        }
        Files.writeString(out.resolve("summary.json"), JSON.writeValueAsString(summary(results, models)));
        Files.createDirectories(out.resolve("tables"));
        for (DocsTables.Table t : DocsTables.tables(results)) {
            Files.writeString(out.resolve(t.file()), t.markdown());
        }
        Files.writeString(out.resolve("index.html"), ProfilePage.html(results, models, pictured,
                ProfilePage.MadeFrom.read(Instant.now()), settings));
        return results;
    }

    // ------------------------------------------------------------------------------------------------ programs

    /** Every solution, at the book's sizes. Values are zeros: the modelled time depends on shapes only. */
    static List<Program> programs() {
        List<Program> ps = new ArrayList<>();
        Mesh xy = Mesh.makeMesh(new int[]{2, 4}, "X", "Y");
        int b = 1024;
        int d = 2048;
        int f = 8192;
        String book = "B, D, F = 1024, 2048, 8192 on X = 2, Y = 4";

        // The book's profile: int32 arange arrays in the book, so int32 here.
        Supplier<ShardedArray> a = () -> put(b, d, xy, P("X", "Y"));
        Supplier<ShardedArray> w = () -> put(d, f, xy, P(null, "Y"));
        ps.add(new Program("collective-matmul-book", "jit-allgather", "3.0", book, ModelDtype.INT32,
                () -> Problem3.allGatherMatmulNaive(a.get(), w.get())));
        ps.add(new Program("collective-matmul-book", "collective", "3.0", book, ModelDtype.INT32,
                () -> Problem3.allGatherMatmul(a.get(), w.get())));
        ps.add(new Program("collective-matmul-book", "unsharded-baseline", "0.1", book, ModelDtype.INT32,
                () -> Chapter0.matmulNoCommunication(put(b, d, xy, P("X", null)), w.get())));

        // Problem 2: a mixture of experts, S = 4096 tokens, D = 1024, F = 2048, E = 8 experts, uniform routing.
        int s2 = 4096;
        int d2 = 1024;
        int f2 = 2048;
        int e2 = 8;
        String moe = "S, D, F, E = 4096, 1024, 2048, 8 on X = 2, Y = 4; uniform routing";
        Supplier<ShardedArray> a2 = () -> put(s2, d2, xy, P("X", "Y"));
        Supplier<ShardedArray> w2e = () -> ShardedArray.devicePut(NDArray.zeros(DType.FLOAT32, e2, d2, f2), xy,
                P("X", null, "Y"));
        Supplier<ShardedArray> route1 = () -> ShardedArray.devicePut(routing(s2, 1, e2), xy, P("X"));
        Supplier<ShardedArray> route2 = () -> ShardedArray.devicePut(routing(s2, 2, e2), xy, P("X", null));
        ps.add(new Program("mixture-of-experts", "all-gather", "2.3a", moe, ModelDtype.BFLOAT16,
                () -> Problem2.moeAllGather(a2.get(), w2e.get(), route1.get())));
        ps.add(new Program("mixture-of-experts", "ragged-all-to-all", "2.3b", moe + ", capacity 256",
                ModelDtype.BFLOAT16, () -> Problem2.moeAllToAll(a2.get(), w2e.get(), route1.get(), 256)));
        ps.add(new Program("mixture-of-experts", "top-2-all-to-all", "2.4", moe + ", k = 2, capacity 512",
                ModelDtype.BFLOAT16, () -> Problem2.moeTopKAllToAll(a2.get(), w2e.get(), route2.get(), 512)));

        // Problems 3 and 4 in bfloat16, the TPU's native matmul input.
        ModelDtype bf16 = ModelDtype.BFLOAT16;
        ps.add(new Program("all-gather-matmul", "naive", "3.0", book, bf16,
                () -> Problem3.allGatherMatmulNaive(a.get(), w.get())));
        ps.add(new Program("all-gather-matmul", "collective", "3.0", book, bf16,
                () -> Problem3.allGatherMatmul(a.get(), w.get())));
        ps.add(new Program("all-gather-matmul", "bidirectional", "4.0", book, bf16,
                () -> Problem4.allGatherMatmul(a.get(), w.get())));
        Supplier<ShardedArray> wRows = () -> put(d, f, xy, P("Y", null));
        ps.add(new Program("all-reduce-matmul", "collective-4-tiles", "3.1", book, bf16,
                () -> Problem3.allReduceMatmul(a.get(), wRows.get(), 4)));
        ps.add(new Program("all-reduce-matmul", "bidirectional", "4.1", book, bf16,
                () -> Problem4.allReduceMatmul(a.get(), wRows.get())));
        Supplier<ShardedArray> tmp = () -> put(b, f, xy, P("X", "Y"));
        Supplier<ShardedArray> w2 = () -> put(f, d, xy, P("Y", null));
        ps.add(new Program("reduce-scatter-matmul", "collective", "3.2", book, bf16,
                () -> Problem3.reduceScatterMatmul(tmp.get(), w2.get())));
        ps.add(new Program("reduce-scatter-matmul", "bidirectional", "4.2", book, bf16,
                () -> Problem4.reduceScatterMatmul(tmp.get(), w2.get())));
        ps.addAll(largerF(a, xy));
        ps.add(new Program("transformer-block", "naive", "3.3", book, bf16,
                () -> Problem3.transformerBlockNaive(a.get(), w.get(), w2.get())));
        ps.add(new Program("transformer-block", "collective", "3.3", book, bf16,
                () -> Problem3.transformerBlock(a.get(), w.get(), w2.get())));
        // The seed's comparison for 3.3: the block on whole arrays, compiled by jit on Auto axes (docs/problem-3.md)
        Mesh xyAuto = xy.withAxisTypes(AxisType.AUTO, AxisType.AUTO);
        ps.add(new Program("transformer-block", "jit", "3.3", book + ", Auto axes", bf16,
                () -> jitBlock(put(b, d, xyAuto, P("X", "Y")), put(d, f, xyAuto, P(null, "Y")),
                        put(f, d, xyAuto, P("Y", null)))));

        // Chapter 0's four matmul cases on the same mesh (I, J, K = 512, 1024, 2048), and the other examples.
        int i = 512;
        int j = 1024;
        int k = 2048;
        String ijk = "I, J, K = 512, 1024, 2048 on X = 2, Y = 4";
        ps.add(new Program("chapter-0", "0.1-no-communication", "0.1", ijk, bf16,
                () -> Chapter0.matmulNoCommunication(put(i, j, xy, P("X", null)), put(j, k, xy, P(null, "Y")))));
        ps.add(new Program("chapter-0", "0.2-gather-a", "0.2", ijk, bf16,
                () -> Chapter0.matmulGatherA(put(i, j, xy, P(null, "X")), put(j, k, xy, P()))));
        ps.add(new Program("chapter-0", "0.3-psum", "0.3", ijk, bf16,
                () -> Chapter0.matmulPsum(put(i, j, xy, P(null, "X")), put(j, k, xy, P("X", null)))));
        ps.add(new Program("chapter-0", "0.4-reduce-scatter-all-gather", "0.4", ijk, bf16,
                () -> Chapter0.matmulReduceScatterAllGather(put(i, j, xy, P(null, "X")), put(j, k, xy, P("X", null)))));
        ps.add(new Program("chapter-0", "0.5-same-axis-gather-b", "0.5", ijk, bf16,
                () -> Chapter0.matmulSameAxisGatherB(put(i, j, xy, P("X", null)), put(j, k, xy, P(null, "X")))));
        ps.add(new Program("chapter-0", "0.5-same-axis-gather-a", "0.5", ijk, bf16,
                () -> Chapter0.matmulSameAxisGatherA(put(i, j, xy, P("X", null)), put(j, k, xy, P(null, "X")))));
        Mesh ij = Mesh.makeMesh(new int[]{4, 2}, "i", "j");
        ps.add(new Program("chapter-0", "0.6-parallel-normalize", "0.6", "x[1024, 8192] on i = 4, j = 2", bf16,
                () -> Chapter0.parallelNormalize(put(1024, 8192, ij, P("i", "j")))));
        Mesh i8 = Mesh.makeMesh(new int[]{8}, "i");
        ps.add(new Program("chapter-0", "0.7-gathered-weight", "0.7", "x[1024, 2048] · w[2048, 2048] on i = 8", bf16,
                () -> Chapter0.matmulWithGatheredWeight(put(1024, 2048, i8, P("i", null)),
                        put(2048, 2048, i8, P("i", null)))));
        ps.add(new Program("chapter-0", "0.8-ring-shift", "0.8", "x[8192, 1024] on i = 8, k = 1", bf16,
                () -> Chapter0.ringShift(put(8192, 1024, i8, P("i", null)), 1)));
        Mesh small = Mesh.makeMesh(new int[]{2, 4}, "x", "y");
        ps.add(new Program("chapter-0", "0.9-slice-and-average", "0.9", "x[512] on x = 2, y = 4", bf16,
                () -> Chapter0.sliceAndAverage(ShardedArray.devicePut(NDArray.zeros(DType.FLOAT32, 512), small,
                        P(tuple("x", "y"))))));
        ps.add(new Program("chapter-0", "0.10-fold-key", "0.10", "a key on i = 4, j = 2", ModelDtype.INT32,
                () -> Chapter0.foldKeyOverAxis(PRNG.key(0).toArray(), ij)));

        // Problem 1 at the book's size: int32[512, 8] on X = 4, Y = 2. The global-view parts run no shardMap.
        Mesh p1 = Mesh.makeMesh(new int[]{4, 2}, "X", "Y");
        Supplier<ShardedArray> x1 = () -> ShardedArray.devicePut(NDArray.zeros(DType.INT32, 512, 8), p1,
                P("X", "Y"));
        ps.add(new Program("problem-1", "1.1a-per-shard-mean", "1.1a", "int32[512, 8] on X = 4, Y = 2",
                ModelDtype.INT32, () -> Problem1.perShardMean(x1.get())));
        ps.add(new Program("problem-1", "1.2a-roll-within-shards", "1.2a", "int32[512, 8] on X = 4, Y = 2, shift 5",
                ModelDtype.INT32, () -> Problem1.rollWithinShards(x1.get(), 5)));
        ps.addAll(training());
        ps.addAll(chapter7());
        return ps;
    }

    /** F of the larger runs of Problems 3 and 4: four times the book's, the same A to gather. */
    static final int LARGER_F = 4 * 8192;

    /**
     * The all-gather and reduce-scatter matmuls of Problems 3 and 4 at F = 32768 (four times the FLOPs, the same A
     * to gather or the same result to scatter), as problems {@code all-gather-matmul-f32768} and
     * {@code reduce-scatter-matmul-f32768}: where compute hides the transfers, the fewest, largest matmuls win.
     */
    static List<Program> largerF(Supplier<ShardedArray> a, Mesh xy) {
        int b = 1024;
        int d = 2048;
        int f = LARGER_F;
        String shapes = "B, D, F = 1024, 2048, 32768 on X = 2, Y = 4";
        ModelDtype bf16 = ModelDtype.BFLOAT16;
        Supplier<ShardedArray> w = () -> put(d, f, xy, P(null, "Y"));
        Supplier<ShardedArray> tmp = () -> put(b, f, xy, P("X", "Y"));
        Supplier<ShardedArray> w2 = () -> put(f, d, xy, P("Y", null));
        String ag = "all-gather-matmul-f32768";
        String rs = "reduce-scatter-matmul-f32768";
        return List.of(
                new Program(ag, "naive", "3.0", shapes, bf16, () -> Problem3.allGatherMatmulNaive(a.get(), w.get())),
                new Program(ag, "collective", "3.0", shapes, bf16, () -> Problem3.allGatherMatmul(a.get(), w.get())),
                new Program(ag, "bidirectional", "4.0", shapes, bf16,
                        () -> Problem4.allGatherMatmul(a.get(), w.get())),
                new Program(rs, "collective", "3.2", shapes, bf16,
                        () -> Problem3.reduceScatterMatmul(tmp.get(), w2.get())),
                new Program(rs, "bidirectional", "4.2", shapes, bf16,
                        () -> Problem4.reduceScatterMatmul(tmp.get(), w2.get())));
    }

    /**
     * Chapter 7's solutions in bfloat16 on TPU-sized pieces: 7.1, 7.2 and 7.3 at their performance parts' sizes
     * (their modelled times are the references of 7.1p, 7.2bp and 7.3p), 7.4's two data-parallel steps on one
     * weight of 512 × 512 and 512 rows per device, 7.5's mixed-precision step and 7.6's checkpointed stack at the
     * same width.
     */
    static List<Program> chapter7() {
        ModelDtype bf16 = ModelDtype.BFLOAT16;
        List<Program> ps = new ArrayList<>();
        Mesh dm = Mesh.makeMesh(new int[]{4, 4}, new String[]{"data", "model"}, AxisType.AUTO, AxisType.AUTO);
        ps.add(new Program("fsdp-tp-step", "4x4-data-model", "7.1", "B, D, F = 512, 512, 2048 on data = 4,"
                + " model = 4", bf16, () -> Chapter7.fsdpTpStep(put(512, 512, dm, P("data", null)),
                put(512, 512, dm, P("data", null)), put(512, 2048, dm, P("data", "model")),
                put(2048, 512, dm, P("model", "data")), 0.05f)));

        // 4 stages of 2 layers of D = 256, M = 8 microbatches of b = 32 rows
        Mesh stages = Mesh.makeMesh(new int[]{4}, new String[]{"stage"}, AxisType.AUTO);
        String pipe = "L = 8 layers of D = 256, M = 8 microbatches of b = 32 rows on stage = 4";
        Supplier<ShardedArray> layers = () -> ShardedArray.devicePut(NDArray.zeros(DType.FLOAT32, 8, 256, 256),
                stages, P("stage"));
        Supplier<ShardedArray> micro = () -> ShardedArray.devicePut(NDArray.zeros(DType.FLOAT32, 8, 32, 256),
                stages, P());
        ps.add(new Program("pipeline", "gpipe", "7.2a", pipe, bf16,
                () -> Chapter7.gpipe(layers.get(), micro.get(), micro.get())));
        ps.add(new Program("pipeline", "1f1b", "7.2b", pipe, bf16,
                () -> Chapter7.oneFOneB(layers.get(), micro.get(), micro.get())));

        Mesh seq = Mesh.makeMesh(new int[]{8}, new String[]{"seq"}, AxisType.AUTO);
        String ring = "Q, K, V [2048, 128] on seq = 8";
        Supplier<ShardedArray> qkv = () -> put(2048, 128, seq, P("seq"));
        ps.add(new Program("ring-attention", "plain", "7.3", ring, bf16,
                () -> Chapter7.ringAttention(qkv.get(), qkv.get(), qkv.get())));
        ps.add(new Program("ring-attention", "causal", "7.3", ring, bf16,
                () -> Chapter7.causalRingAttention(qkv.get(), qkv.get(), qkv.get())));

        Mesh data = Mesh.makeMesh(new int[]{8}, new String[]{"data"}, AxisType.AUTO);
        String dp = "W [512, 512], B = 4096 on data = 8";
        Supplier<ShardedArray> w = () -> put(512, 512, data, P());
        Supplier<ShardedArray> rows = () -> put(4096, 512, data, P("data"));
        ps.add(new Program("data-parallel-step", "accumulation-4-microbatches", "7.4a", dp + ", 4 microbatches of"
                + " 128 rows", bf16, () -> Chapter7.accumulatedGradient(w.get(), rows.get(), rows.get(), 4)));
        Supplier<ShardedArray> moment = () -> put(512, 512, data, P("data"));
        ps.add(new Program("data-parallel-step", "zero-1-adam", "7.4b", dp + ", Adam step 1", bf16,
                () -> Chapter7.zeroAdamStep(w.get(), moment.get(), moment.get(), rows.get(), rows.get(), 1, 1e-3f)));

        // 7.5 computes in both dtypes on purpose (bf16 copies and products, f32 masters and reductions): modelled
        // as written, each event at its own dtype's bytes, not rescaled. H = 8192 makes each collective move
        // megabytes, so that its bytes, not the fixed cost of its steps, decide its time on every chip (at H = 2048 an
        // 8-GPU ring's 7 steps of 2 µs were most of a bf16 all-gather, which then took 0.82× the f32 reduce-scatter).
        ps.add(new Program("mixed-precision-step", "bf16-gather-f32-reduce", "7.5", "D, H, F = 512, 8192, 512,"
                + " B = 4096 on data = 8; masters f32 P('data')", ModelDtype.FLOAT32,
                () -> Chapter7.mixedPrecisionStep(put(512, 8192, data, P("data")), put(8192, 512, data, P("data")),
                        put(4096, 512, data, P("data")), put(4096, 512, data, P("data")), 0.05f)));
        // 7.6: 8 layers of D = 512, each checkpointed; the backward recomputes every layer's forward once.
        ps.add(new Program("rematerialised-step", "checkpoint-every-layer", "7.6", "L = 8 layers of D = 512,"
                + " B = 4096 on data = 8", bf16, () -> Chapter7.rematerialisedStep(
                java.util.stream.Stream.generate(w).limit(8).toList(), rows.get(), rows.get())));
        return ps;
    }

    /**
     * Seed 001's SGD step at its full size — layers [784, 8192, 8192, 8192, 10], batch 8192, float32 — as one jitted
     * program (grad of the loss and the update), 8-way data parallel and 4-way data × 2-way tensor parallel (W2
     * split by columns, W3 by rows over 'model'), Auto axes as in the notebook. Lowered and modelled only: a real
     * call would multiply about 7 TFLOP and hold several GB per simulated device.
     */
    static List<Program> training() {
        int[] sizes = {784, 8192, 8192, 8192, 10};
        int batch = 8192;
        String shapes = "layers [784, 8192, 8192, 8192, 10], batch 8192, float32, SGD lr 1e-5";
        Mesh dp = Mesh.makeMesh(new int[]{8}, new String[]{"batch"}, AxisType.AUTO);
        Mesh tp = Mesh.makeMesh(new int[]{4, 2}, new String[]{"batch", "model"}, AxisType.AUTO, AxisType.AUTO);
        List<PartitionSpec> replicated = java.util.Collections.nCopies(8, P());
        List<PartitionSpec> tensor = List.of(P(), P(), P(null, "model"), P("model"), P("model", null), P(), P(), P());
        return List.of(
                Program.lowered("seed-001-mlp-step", "8-way-data-parallel", "seed 001", shapes + "; batch = 8",
                        ModelDtype.FLOAT32, () -> lowerStep(sizes, batch, dp, replicated)),
                Program.lowered("seed-001-mlp-step", "4x2-data-tensor-parallel", "seed 001",
                        shapes + "; batch = 4, model = 2", ModelDtype.FLOAT32,
                        () -> lowerStep(sizes, batch, tp, tensor)));
    }

    /**
     * Part 3.3's block, {@code gelu(In @ Win) @ Wout}, jitted with out sharding P('X', 'Y'): the jit baseline the
     * seed times the collective version against. It compiles to the naive plan (an all-gather of In over Y, the two
     * matmuls, a reduce-scatter over Y).
     */
    static ShardedArray jitBlock(ShardedArray in, ShardedArray win, ShardedArray wout) {
        return Jit.jitList(v -> List.of(v.get(0).matmul(v.get(1)).gelu().matmul(v.get(2)))).named("transformer_block")
                .outShardings(P("X", "Y")).call(in, win, wout).get(0);
    }

    /** (params…, inputs, targets) → the parameters after one SGD step of the seed-001 MLP. */
    static List<ShardedArray> sgdStep(List<ShardedArray> a) {
        int n = a.size() - 2;
        int[] all = new int[n];
        for (int k = 0; k < n; k++) {
            all[k] = k;
        }
        List<ShardedArray> grads = Autodiff.<ShardedArray>gradList(ps -> Mlp.loss(ps, a.get(n), a.get(n + 1)), all)
                .apply(a.subList(0, n));
        return Mlp.sgd(a.subList(0, n), grads, 1e-5f);
    }

    /** The step lowered for zero arrays of these sizes (values do not matter to the layouts or the model). */
    private static Compiled lowerStep(int[] sizes, int batch, Mesh mesh, List<PartitionSpec> paramSpecs) {
        List<Object> args = new ArrayList<>();
        for (int l = 0; l < sizes.length - 1; l++) {
            args.add(ShardedArray.devicePut(NDArray.zeros(DType.FLOAT32, sizes[l], sizes[l + 1]), mesh,
                    paramSpecs.get(2 * l)));
            args.add(ShardedArray.devicePut(NDArray.zeros(DType.FLOAT32, sizes[l + 1]), mesh,
                    paramSpecs.get(2 * l + 1)));
        }
        args.add(put(batch, sizes[0], mesh, P("batch", null)));
        args.add(put(batch, sizes[sizes.length - 1], mesh, P("batch", null)));
        return Jit.jitList(ReferenceProfiles::sgdStep).named("train_step").lower(args.toArray());
    }

    /** A fixed pseudo-random routing int32[s] (k = 1) or int32[s, k] over e experts. */
    private static NDArray routing(int s, int k, int e) {
        java.util.Random r = new java.util.Random(2);
        int[] b = new int[s * k];
        for (int i = 0; i < b.length; i++) {
            b[i] = r.nextInt(e);
        }
        return k == 1 ? NDArray.fromInts(b, s) : NDArray.fromInts(b, s, k);
    }

    private static ShardedArray put(int rows, int cols, Mesh mesh, PartitionSpec spec) {
        return ShardedArray.devicePut(NDArray.zeros(DType.FLOAT32, rows, cols), mesh, spec);
    }

    // ------------------------------------------------------------------------------------------------- output

    static ObjectNode summary(List<Result> results, List<HardwareModel> models) {
        ObjectNode root = JSON.createObjectNode();
        ArrayNode ms = root.putArray("hardware_models");
        for (HardwareModel m : models) {
            ms.addObject().put("name", m.name()).put("description", m.description());
        }
        ArrayNode entries = root.putArray("entries");
        for (Result r : results) {
            Program p = r.program();
            entries.addObject().put("problem", p.problem()).put("variant", p.variant()).put("part", p.part())
                    .put("shapes", p.shapes()).put("hardware", r.model().name()).put("dtype", p.dtype().jaxName())
                    .put("modelled_us", round(r.timeline().micros())).put("wall_ms", round(r.wallMs()))
                    .put("flops", r.timeline().flops()).put("bytes_communicated", r.timeline().bytesSentTotal())
                    .put("perfetto", ProfilePage.trace(r)).put("svg", ProfilePage.picture(r));
            if (r.peakBytes() != null) {
                ObjectNode e = (ObjectNode) entries.get(entries.size() - 1);
                e.put("peak_bytes_per_device", r.peakBytes()).put("modelled_without_running", true);
            }
        }
        Map<String, Double> book = bookTimes(results);
        if (book.size() < 3) {
            return root; // the book's three variants were not among the programs
        }
        ObjectNode fid = root.putObject("fidelity");
        fid.put("hardware", PRIMARY);
        fid.putObject("book_us").put("jit-allgather", 311).put("collective", 244).put("unsharded-baseline", 224);
        fid.put("jit-allgather_us", round(book.get("jit-allgather")));
        fid.put("collective_us", round(book.get("collective")));
        fid.put("unsharded-baseline_us", round(book.get("unsharded-baseline")));
        fid.put("jit_over_collective", round(book.get("jit-allgather") / book.get("collective")));
        fid.put("book_jit_over_collective", round(311.0 / 244));
        fid.put("collective_over_baseline", round(book.get("collective") / book.get("unsharded-baseline")));
        fid.put("book_collective_over_baseline", round(244.0 / 224));
        return root;
    }

    static Map<String, Double> bookTimes(List<Result> results) {
        Map<String, Double> t = new LinkedHashMap<>();
        for (Result r : results) {
            if (r.program().problem().equals("collective-matmul-book") && r.model().name().equals(PRIMARY)) {
                t.put(r.program().variant(), r.timeline().micros());
            }
        }
        return t;
    }

    private static double round(double v) {
        return Math.round(v * 1000) / 1000.0;
    }

}
