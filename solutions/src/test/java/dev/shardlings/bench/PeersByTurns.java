package dev.shardlings.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.shardlings.array.DType;
import dev.shardlings.array.OpObserver;
import dev.shardlings.array.OpObservers;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The matmuls and the all-gather against their peers, measured in the same run and by turns, as
 * {@link TrainingVersusJax} does for the training step:
 * <ul>
 *   <li>the book's sharded matmul (B×D×F = 1024×2048×8192 on a 2 × 4 mesh), all-gather then matmul and the
 *       collective matmul, against JAX on 8 simulated CPU devices running the same programs
 *       ({@code src/bench/peers.py}: a jit with the same shardings, and a shard_map with ppermute);</li>
 *   <li>the local f32 matmul, n = 1024, against numpy's {@code a @ b} with all OpenBLAS threads (ours on all
 *       cores, as host code runs it) and with one (ours on one thread);</li>
 *   <li>the all-gather of 64 MB over 8 devices against {@link System#arraycopy} of the same bytes.</li>
 * </ul>
 * Each comparison alternates rounds: a few calls of the reference, then as many of ours (the order swapped every
 * other round), each turn after a pause of {@link #SETTLE_MILLIS} so that the other side is idle; a round's ratio is
 * the reference's median time over ours (above 1: ours is faster), and the figure is the median of the rounds'
 * ratios, with their spread. The machines this course is built on are shared 2-core
 * VMs whose load moves within seconds; calls measured in the same round see the same load.
 *
 * <p>Usage: {@code PeersByTurns <jax python> <numpy python> <peers.py> <out.json> [rounds]} (default 10). The python
 * processes ({@code peers.py --serve}) are started with {@link ProcessBuilder} and kept for the whole comparison;
 * when one cannot run (no such python, no JAX or numpy), its comparisons are {@code {"error": …}} in the output and
 * the report says so. The exit code is 0 either way.
 */
public final class PeersByTurns {

    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    /** One side of a comparison: runs n calls and returns each one's time in seconds. */
    interface Side {
        double[] run(int n) throws IOException;
    }

    private PeersByTurns() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 4) {
            System.err.println("usage: PeersByTurns <jax python> <numpy python> <peers.py> <out.json> [rounds]");
            System.exit(2);
        }
        String jaxPython = args[0];
        String numpyPython = args[1];
        String script = args[2];
        Path out = Path.of(args[3]);
        int rounds = args.length > 4 ? Integer.parseInt(args[4]) : 10;
        Files.createDirectories(out.toAbsolutePath().getParent());
        ObjectNode result = JSON.createObjectNode();
        ArrayNode comparisons = result.putArray("comparisons");

        // Ours, warmed up first: C2 must compile the Vector API kernels before anything is timed.
        ShardedMatmulBench sharded = new ShardedMatmulBench();
        sharded.size = BenchReport.BOOK_SIZE;
        sharded.setup();
        LocalMatmulBench local = new LocalMatmulBench();
        local.n = 1024;
        local.setup();
        AllGatherBench gather = new AllGatherBench();
        gather.devices = 8;
        gather.setup();
        for (int i = 0; i < 8; i++) {
            sharded.allGatherThenMatmul();
            sharded.collectiveMatmul();
            gather.allGather();
            gather.arraycopyReference();
        }
        for (int i = 0; i < 40; i++) {
            local.matmul();
            oneThread(local);
        }
        result.put("jdk", System.getProperty("java.version")).put("vm", System.getProperty("java.vm.name"))
                .put("cores", Runtime.getRuntime().availableProcessors());

        Peer jax = Peer.start(jaxPython, script, Map.of("XLA_FLAGS", "--xla_force_host_platform_device_count=8",
                "JAX_PLATFORMS", "cpu"), null, "jax_allgather_matmul", "jax_collective_matmul");
        try {
            result.set("jax", jax.versions);
            comparisons.add(compare("allGatherThenMatmul", "JAX jit, all-gather then matmul", jax.side(
                    "jax_allgather_matmul"), timed(sharded::allGatherThenMatmul), rounds, 3));
            comparisons.add(compare("collectiveMatmul", "JAX shard_map collective matmul (ppermute)", jax.side(
                    "jax_collective_matmul"), timed(sharded::collectiveMatmul), rounds, 3));
        } finally {
            jax.close();
        }
        Peer numpyAll = Peer.start(numpyPython, script, Map.of(), "", "numpy_matmul");
        try {
            result.set("numpy_all_threads", numpyAll.versions);
            comparisons.add(compare("localMatmul1024AllThreads", "numpy a @ b, all threads",
                    numpyAll.side("numpy_matmul"), timed(local::matmul), rounds, 5));
        } finally {
            numpyAll.close();
        }
        Peer numpyOne = Peer.start(numpyPython, script, Map.of(), "1", "numpy_matmul");
        try {
            result.set("numpy_one_thread", numpyOne.versions);
            comparisons.add(compare("localMatmul1024OneThread", "numpy a @ b, one thread",
                    numpyOne.side("numpy_matmul"), timed(() -> oneThread(local)), rounds, 5));
        } finally {
            numpyOne.close();
        }
        comparisons.add(compare("allGather64MB8", "System.arraycopy of the same bytes",
                timed(gather::arraycopyReference), timed(gather::allGather), rounds, 3));

        Files.writeString(out, JSON.writeValueAsString(result), StandardCharsets.UTF_8);
        for (JsonNode c : comparisons) {
            System.out.println(c.has("error") ? c.path("name").asText() + ": not compared: " + c.path("error").asText()
                    : String.format(Locale.ROOT, "%s: ours %.2f ms, %s %.2f ms, ours/reference speed %.2f (rounds"
                            + " %.2f-%.2f)", c.path("name").asText(), c.path("ours_seconds_median").asDouble() * 1e3,
                    c.path("reference").asText(), c.path("reference_seconds_median").asDouble() * 1e3,
                    c.path("ratio_median").asDouble(), c.path("ratio_min").asDouble(), c.path("ratio_max")
                            .asDouble()));
        }
    }

    /**
     * Our matmul on the calling thread alone: a host-side matmul shares its work among the cores unless an
     * {@link OpObserver} is installed (as on a simulated device), so one that observes nothing is.
     */
    static void oneThread(LocalMatmulBench local) {
        try (OpObservers.Scope ignored = OpObservers.install(SERIAL)) {
            local.matmul();
        }
    }

    private static final OpObserver SERIAL = new OpObserver() {
        @Override
        public void allocated(DType dtype, int[] shape, long bytes) {
        }

        @Override
        public void matmul(int m, int k, int n, DType dtype) {
        }
    };

    static Side timed(Runnable r) {
        return n -> {
            double[] t = new double[n];
            for (int i = 0; i < n; i++) {
                long t0 = System.nanoTime();
                r.run();
                t[i] = (System.nanoTime() - t0) / 1e9;
            }
            return t;
        };
    }

    static ObjectNode compare(String name, String reference, Side ref, Side ours, int rounds, int perRound) {
        ObjectNode c = JSON.createObjectNode().put("name", name).put("reference", reference);
        try {
            ref.run(1); // fails here, before any round, when the peer could not be set up
            double[] allRef = new double[rounds * perRound];
            double[] allOurs = new double[rounds * perRound];
            double[] ratio = new double[rounds];
            ArrayNode ratios = JSON.createArrayNode();
            for (int k = 0; k < rounds; k++) {
                double[] r;
                double[] o;
                if (k % 2 == 0) {
                    r = afterSettling(ref, perRound);
                    o = afterSettling(ours, perRound);
                } else {
                    o = afterSettling(ours, perRound);
                    r = afterSettling(ref, perRound);
                }
                System.arraycopy(r, 0, allRef, k * perRound, perRound);
                System.arraycopy(o, 0, allOurs, k * perRound, perRound);
                ratio[k] = median(r) / median(o);
                ratios.add(ratio[k]);
            }
            c.put("rounds", rounds).put("calls_per_round", perRound)
                    .put("reference_seconds_median", median(allRef)).put("ours_seconds_median", median(allOurs))
                    .put("ratio_median", median(ratio)).put("ratio_min", Arrays.stream(ratio).min().orElse(0))
                    .put("ratio_max", Arrays.stream(ratio).max().orElse(0));
            c.set("round_ratios", ratios);
        } catch (IOException | RuntimeException e) {
            c.put("error", e.getMessage() == null ? e.toString() : e.getMessage());
        }
        return c;
    }

    /**
     * How long each turn waits first, in ms, so that the side that ran before it is idle. Why: OpenBLAS's worker
     * threads spin for about 0.1 s after a call before they sleep (measured: numpy burns 0.1 CPU-seconds in the
     * 0.3 s after its calls, JAX none), so a turn right after numpy's shared a core with a spinning thread; our
     * 1024³ matmul measured 15.9 ms by turns against 12.3-13.2 ms alone.
     */
    static final long SETTLE_MILLIS = 250;

    private static double[] afterSettling(Side side, int n) throws IOException {
        try {
            Thread.sleep(SETTLE_MILLIS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted between turns", e);
        }
        return side.run(n);
    }

    static double median(double[] xs) {
        return TrainingVersusJax.median(xs);
    }

    /** A {@code peers.py --serve} process. */
    static final class Peer implements AutoCloseable {
        final Process process;
        final BufferedReader in;
        final PrintWriter to;
        final JsonNode versions;
        final JsonNode workloads;
        final String error;

        private Peer(Process process, BufferedReader in, PrintWriter to, JsonNode ready, String error) {
            this.process = process;
            this.in = in;
            this.to = to;
            this.versions = ready == null ? JSON.createObjectNode().put("error", error) : ready.path("versions");
            this.workloads = ready == null ? JSON.createObjectNode() : ready.path("workloads");
            this.error = error;
        }

        /**
         * Starts {@code python script --serve workloads…} with the environment given, and without the OpenBLAS
         * overrides some machines set (OPENBLAS_CORETYPE, OPENBLAS_L2_SIZE); {@code blasThreads} is
         * OPENBLAS_NUM_THREADS ("" unsets it: all cores) or null to leave it as it is.
         */
        static Peer start(String python, String script, Map<String, String> env, String blasThreads,
                          String... workloads) {
            String[] cmd = new String[3 + workloads.length];
            cmd[0] = python;
            cmd[1] = script;
            cmd[2] = "--serve";
            System.arraycopy(workloads, 0, cmd, 3, workloads.length);
            ProcessBuilder pb = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT);
            pb.environment().putAll(env);
            pb.environment().remove("OPENBLAS_CORETYPE");
            pb.environment().remove("OPENBLAS_L2_SIZE");
            if (blasThreads != null && blasThreads.isEmpty()) {
                pb.environment().remove("OPENBLAS_NUM_THREADS");
            } else if (blasThreads != null) {
                pb.environment().put("OPENBLAS_NUM_THREADS", blasThreads);
            }
            Process p;
            try {
                p = pb.start();
            } catch (IOException e) {
                return new Peer(null, null, null, null, python + " could not be started: " + e.getMessage());
            }
            BufferedReader in = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
            PrintWriter to = new PrintWriter(p.getOutputStream(), true, StandardCharsets.UTF_8);
            try {
                String first = in.readLine();
                JsonNode ready = first == null ? null : JSON.readTree(first);
                if (ready == null || !ready.path("ready").asBoolean()) {
                    return new Peer(p, in, to, null, python + " " + script + " did not start (" + (first == null
                            ? "it ended" : first) + ")");
                }
                return new Peer(p, in, to, ready, null);
            } catch (IOException e) {
                return new Peer(p, in, to, null, python + " " + script + ": " + e.getMessage());
            }
        }

        Side side(String workload) {
            return n -> {
                if (error != null) {
                    throw new IOException(error);
                }
                if (!workloads.path(workload).asText().equals("ok")) {
                    throw new IOException(workloads.path(workload).asText("not served"));
                }
                to.println(workload + " " + n);
                String line = in.readLine();
                if (line == null) {
                    throw new IOException("the python process ended");
                }
                JsonNode times = JSON.readTree(line);
                if (!times.isArray()) {
                    throw new IOException(times.path("error").asText(line));
                }
                double[] t = new double[n];
                for (int i = 0; i < n; i++) {
                    t[i] = times.get(i).asDouble();
                }
                return t;
            };
        }

        @Override
        public void close() throws InterruptedException {
            if (process == null) {
                return;
            }
            to.println("quit");
            if (!process.waitFor(20, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        }
    }
}
