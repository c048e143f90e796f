package dev.shardlings.grader;

import com.fasterxml.jackson.databind.ObjectMapper;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.stream.Stream;

/**
 * The grade run of {@code mvn test -Pgrade}: the graded parts run in a child JVM ({@link PartRunner}), one after
 * another in course order while that JVM stays clean (one JVM for the whole course, so start-up and JIT warm-up
 * are paid once), so that nothing a part does can stop the grade:
 * <ul>
 *   <li>a part that runs longer than {@code --part-limit} seconds in all is stopped with its JVM and reported as
 *       a time-out;</li>
 *   <li>a part during which the JVM dies — System.exit, Runtime.halt, an OutOfMemoryError the JVM does not survive
 *       — is reported with the exit status and the end of the JVM's output;</li>
 *   <li>a part that leaves code running (an endless loop the Guard gave up on, threads it started) gets a fresh JVM
 *       for the parts after it, so they are not slowed down;</li>
 * </ul>
 * and in every case the remaining parts are graded in a new JVM and results.json is written.
 *
 * <p>Grades do not depend on this isolation: each part's checks are the same as in a plain JUnit run, with fixed
 * seeds, so results.json is the same run after run apart from {@code execution_time}.
 */
@Command(name = "grade", mixinStandardHelpOptions = true,
        description = "Grades the parts in isolated JVMs and writes results.json.")
public final class IsolatedGrading implements Callable<Integer> {

    @Option(names = "--test-classes", required = true, description = "the grader's compiled test classes")
    Path testClasses;

    @Option(names = "--results", required = true, description = "where to write results.json")
    Path results;

    @Option(names = "--target", defaultValue = "exercises", description = "what is graded: exercises or solutions")
    String target;

    @Option(names = "--only", defaultValue = "", description = "a glob of test class names, e.g. 'Part12a*'")
    String only;

    @Option(names = "--packages", split = ",", description = "packages of graded test classes (default: the"
            + " course's chapters)")
    List<String> packages = List.of("dev.shardlings.grader.chapter0", "dev.shardlings.grader.problem1",
            "dev.shardlings.grader.problem2", "dev.shardlings.grader.problem3", "dev.shardlings.grader.problem4");

    @Option(names = "--part-limit", defaultValue = "120", description = "seconds one part may take in all")
    int partLimitSeconds;

    @Option(names = "--heap", defaultValue = "2g", description = "maximum heap of a grading JVM")
    String heap;

    private static final ObjectMapper JSON = new ObjectMapper();

    /** Runs the command line; exits with 0 when results.json was written, whatever the score. */
    public static void main(String[] args) {
        System.exit(new CommandLine(new IsolatedGrading()).execute(args));
    }

    @Override
    public Integer call() throws IOException {
        long t0 = System.nanoTime();
        Map<Part, List<String>> byPart = discover();
        Map<String, Results.TestResult> done = new LinkedHashMap<>();
        List<Part> queue = new ArrayList<>();
        for (Part p : Parts.all()) {
            if (byPart.containsKey(p)) {
                queue.add(p);
            }
        }
        Path work = results.toAbsolutePath().getParent().resolve("isolated");
        deleteRecursively(work); // logs of an earlier run's JVMs would read as this run's
        Files.createDirectories(work);
        int jvm = 0;
        while (!queue.isEmpty()) {
            jvm++;
            runChild(queue, byPart, work.resolve("jvm-" + jvm), done);
            queue.removeIf(p -> done.containsKey(p.number()));
        }
        List<Results.TestResult> tests = new ArrayList<>();
        double score = 0;
        for (Part p : Parts.all()) {
            Results.TestResult r = done.getOrDefault(p.number(),
                    Results.TestResult.of(p, false, "No test of this part ran.", "not run"));
            tests.add(r);
            score += r.score();
        }
        double seconds = Math.round((System.nanoTime() - t0) / 1e7) / 100.0;
        Map<String, Object> extra = new LinkedHashMap<>();
        extra.put("target", target);
        new Results(score, seconds, "Graded " + target + ": " + (score == Math.rint(score) ? Long.toString((long) score)
                : Double.toString(score)) + " points.", extra, tests).write(results);
        return 0;
    }

    /** The graded test classes, by part, in the packages and matching --only. */
    Map<Part, List<String>> discover() throws IOException {
        Map<Part, List<String>> byPart = new LinkedHashMap<>();
        PathMatcher glob = only.isBlank() || only.startsWith("${") ? null
                : FileSystems.getDefault().getPathMatcher("glob:" + only);
        ClassLoader cl = Thread.currentThread().getContextClassLoader();
        try (Stream<Path> files = Files.walk(testClasses)) {
            for (Path f : files.filter(f -> f.toString().endsWith(".class") && !f.toString().contains("$")).sorted()
                    .toList()) {
                String name = testClasses.relativize(f).toString().replace(f.getFileSystem().getSeparator(), ".")
                        .replaceAll("\\.class$", "");
                String pkg = name.substring(0, Math.max(0, name.lastIndexOf('.')));
                if (!packages.contains(pkg)) {
                    continue;
                }
                String simple = name.substring(name.lastIndexOf('.') + 1);
                if (glob != null && !glob.matches(Path.of(simple))) {
                    continue;
                }
                Class<?> c;
                try {
                    c = Class.forName(name, false, cl);
                } catch (ClassNotFoundException | LinkageError e) {
                    continue;
                }
                GradedPart gp = c.getAnnotation(GradedPart.class);
                if (gp != null && !Modifier.isAbstract(c.getModifiers())) {
                    Part p = Parts.byNumber(gp.value()).orElseThrow(() -> new IllegalStateException(name
                            + " is marked @GradedPart(\"" + gp.value() + "\") but Parts has no such part"));
                    byPart.computeIfAbsent(p, x -> new ArrayList<>()).add(name);
                }
            }
        }
        return byPart;
    }

    /** One child JVM for the parts in {@code queue}, as far as it gets; what it finished goes into {@code done}. */
    private void runChild(List<Part> queue, Map<Part, List<String>> byPart, Path dir,
                          Map<String, Results.TestResult> done) throws IOException {
        Files.createDirectories(dir);
        Path progress = dir.resolve("progress.txt");
        Path log = dir.resolve("output.log");
        Files.deleteIfExists(progress);
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--add-modules", "jdk.incubator.vector", "-Xmx" + heap, "-XX:+ExitOnOutOfMemoryError",
                "-Dfile.encoding=UTF-8", "-Dstdout.encoding=UTF-8", "-Dgrade.target=" + target,
                "-Dgrade.results=" + results.toAbsolutePath(), "-cp", System.getProperty("java.class.path"),
                PartRunner.class.getName(), progress.toString()));
        for (Part p : queue) {
            cmd.add(p.number() + "=" + String.join(",", byPart.get(p)));
        }
        Process child = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        String running = null;
        long startedAt = 0;
        int seen = 0;
        while (true) {
            boolean exited;
            try {
                exited = child.waitFor(50, java.util.concurrent.TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                child.destroyForcibly();
                Thread.currentThread().interrupt();
                throw new IllegalStateException("grading interrupted", e);
            }
            List<String> lines = Files.exists(progress) ? Files.readAllLines(progress, StandardCharsets.UTF_8)
                    : List.of();
            for (; seen < lines.size(); seen++) {
                String line = lines.get(seen);
                if (line.startsWith("START ")) {
                    running = line.substring(6).strip();
                    startedAt = System.nanoTime();
                } else if (line.startsWith("DONE ")) {
                    String rest = line.substring(5);
                    String number = rest.substring(0, rest.indexOf(' '));
                    done.put(number, JSON.readValue(rest.substring(rest.indexOf(' ') + 1), Results.TestResult.class));
                    running = null;
                }
            }
            if (exited) {
                if (running != null) {
                    Part p = Parts.byNumber(running).orElseThrow();
                    done.put(p.number(), died(p, child.exitValue(), log));
                }
                return;
            }
            if (running != null && System.nanoTime() - startedAt > partLimitSeconds * 1_000_000_000L) {
                child.descendants().forEach(ProcessHandle::destroyForcibly);
                child.destroyForcibly();
                try {
                    child.waitFor();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                Part p = Parts.byNumber(running).orElseThrow();
                done.put(p.number(), Results.TestResult.of(p, false, Reports.header(p, "ran longer than the"
                        + " time limit of " + partLimitSeconds + " s for a whole part") + "The grading JVM was"
                        + " stopped while it ran. Look for a loop that never ends, devices waiting for each other,"
                        + " or work far larger than the task needs.\n" + tail(log) + Reports.pointers(p),
                        "ran longer than " + partLimitSeconds + " s in all (endless loop or deadlock?)"));
                return;
            }
        }
    }

    private static Results.TestResult died(Part p, int status, Path log) {
        String out = tail(log);
        boolean oom = out.contains("OutOfMemoryError");
        String reason = oom ? "ran out of memory (OutOfMemoryError): the grading JVM stopped"
                : "the grading JVM exited with status " + status + " during this part (System.exit or"
                + " Runtime.halt?)";
        String report = Reports.header(p, oom ? "ran out of memory" : "stopped the grading JVM")
                + (oom ? "The code needed more than the grader's heap. Look for an array far larger than the task"
                + " needs, or one allocated in a loop and kept.\n" : "While this part ran, the JVM ended with exit"
                + " status " + status + ". Code under grading must return its result; it must never call"
                + " System.exit or Runtime.halt. The other parts were graded in a new JVM.\n") + out
                + Reports.pointers(p);
        return Results.TestResult.of(p, false, report, reason);
    }

    private static void deleteRecursively(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> all = Files.walk(dir)) {
            for (Path p : all.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }

    /** The last lines the JVM printed, for a report. */
    private static String tail(Path log) {
        try {
            if (!Files.exists(log)) {
                return "";
            }
            List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
            List<String> last = lines.subList(Math.max(0, lines.size() - 15), lines.size());
            return last.isEmpty() ? "" : "Last lines the grading JVM printed:\n  " + String.join("\n  ", last) + "\n";
        } catch (IOException | UncheckedIOException e) {
            return "";
        }
    }
}
