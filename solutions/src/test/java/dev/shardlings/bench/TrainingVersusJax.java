package dev.shardlings.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;

/**
 * Seed 001's training step ({@link TrainingBench#step}) against JAX's {@code jax.jit} of grad + SGD, measured by
 * turns: a round runs a few of JAX's steps (in {@code src/bench/jax_training_step.py --serve}, a python process
 * started with {@link ProcessBuilder} and kept for the whole comparison), then as many of ours, and the round's
 * ratio is JAX's median over ours. The result is the median of the rounds' ratios. On a machine shared with other
 * work (the 2-core machines this course is built on are), the load moves within seconds; JAX's and our steps
 * measured minutes apart can differ by 3× for that alone, while steps measured in the same round see the same load.
 *
 * <p>Usage: {@code TrainingVersusJax <python> <jax_training_step.py> <out.json> [rounds] [steps per round]}
 * (defaults 12 and 5). The python must have JAX; the script is given
 * {@code XLA_FLAGS=--xla_force_host_platform_device_count=8} and {@code JAX_PLATFORMS=cpu}. When it cannot run
 * (no such python, no JAX) the output is {@code {"error": …}} and the exit code 0: the report says so.
 */
public final class TrainingVersusJax {

    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private TrainingVersusJax() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 3) {
            System.err.println("usage: TrainingVersusJax <python> <jax_training_step.py> <out.json> [rounds]"
                    + " [steps per round]");
            System.exit(2);
        }
        Path out = Path.of(args[2]);
        int rounds = args.length > 3 ? Integer.parseInt(args[3]) : 12;
        int perRound = args.length > 4 ? Integer.parseInt(args[4]) : 5;
        Files.createDirectories(out.toAbsolutePath().getParent());
        JsonNode result = compare(args[0], args[1], rounds, perRound);
        Files.writeString(out, JSON.writeValueAsString(result), StandardCharsets.UTF_8);
        System.out.println(result.has("error") ? "JAX not compared: " + result.path("error").asText()
                : String.format(java.util.Locale.ROOT, "training step: JAX %.1f ms, ours %.1f ms, JAX's speed / ours"
                        + " %.2f (median of %d rounds)", result.path("jax_step_seconds_median").asDouble() * 1e3,
                result.path("ours_step_seconds_median").asDouble() * 1e3, result.path("ratio_median").asDouble(),
                rounds));
    }

    static JsonNode compare(String python, String script, int rounds, int perRound) throws Exception {
        ProcessBuilder pb = new ProcessBuilder(python, script, "--serve");
        pb.environment().put("XLA_FLAGS", "--xla_force_host_platform_device_count=8");
        pb.environment().put("JAX_PLATFORMS", "cpu");
        pb.redirectError(ProcessBuilder.Redirect.INHERIT);
        Process p;
        try {
            p = pb.start();
        } catch (IOException e) {
            return JSON.createObjectNode().put("error", python + " could not be started: " + e.getMessage());
        }
        try (BufferedReader in = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
             PrintWriter to = new PrintWriter(p.getOutputStream(), true, StandardCharsets.UTF_8)) {
            String first = in.readLine();
            if (first == null) {
                return JSON.createObjectNode().put("error", python + " " + script + " ended before it was ready"
                        + " (exit code " + p.waitFor() + ")");
            }
            JsonNode ready = JSON.readTree(first);
            if (!ready.path("ready").asBoolean()) {
                return ready.has("error") ? ready : JSON.createObjectNode().put("error", "unexpected: " + first);
            }
            TrainingBench ours = new TrainingBench();
            ours.setup();
            for (int i = 0; i < 15; i++) { // warm-up: the JIT compiler and the first steps
                ours.step();
            }
            ObjectNode r = JSON.createObjectNode();
            r.put("jax", ready.path("jax").asText()).put("python", ready.path("python").asText())
                    .put("devices", ready.path("devices").asInt()).put("rounds", rounds)
                    .put("steps_per_round", perRound);
            ArrayNode jaxRounds = r.putArray("jax_round_medians");
            ArrayNode ourRounds = r.putArray("ours_round_medians");
            ArrayNode ratios = r.putArray("round_ratios");
            double[] allJax = new double[rounds * perRound];
            double[] allOurs = new double[rounds * perRound];
            double[] ratio = new double[rounds];
            for (int k = 0; k < rounds; k++) {
                to.println(perRound);
                String line = in.readLine();
                if (line == null) {
                    return JSON.createObjectNode().put("error", "the JAX process ended in round " + k);
                }
                double[] jax = new double[perRound];
                JsonNode times = JSON.readTree(line);
                for (int i = 0; i < perRound; i++) {
                    jax[i] = times.get(i).asDouble();
                }
                double[] mine = new double[perRound];
                for (int i = 0; i < perRound; i++) {
                    long t0 = System.nanoTime();
                    ours.step();
                    mine[i] = (System.nanoTime() - t0) / 1e9;
                }
                System.arraycopy(jax, 0, allJax, k * perRound, perRound);
                System.arraycopy(mine, 0, allOurs, k * perRound, perRound);
                ratio[k] = median(jax) / median(mine);
                jaxRounds.add(median(jax));
                ourRounds.add(median(mine));
                ratios.add(ratio[k]);
            }
            to.println("quit");
            r.put("jax_step_seconds_median", median(allJax)).put("ours_step_seconds_median", median(allOurs))
                    .put("ratio_median", median(ratio)).put("ratio_min", Arrays.stream(ratio).min().orElse(0))
                    .put("ratio_max", Arrays.stream(ratio).max().orElse(0));
            return r;
        } finally {
            if (!p.waitFor(20, TimeUnit.SECONDS)) {
                p.destroyForcibly();
            }
        }
    }

    static double median(double[] xs) {
        double[] s = xs.clone();
        Arrays.sort(s);
        int n = s.length;
        return n % 2 == 1 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
    }
}
