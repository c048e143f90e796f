package dev.shardlings.grader.grade;

import dev.shardlings.grader.sandbox.CourseClasses;
import picocli.CommandLine;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The watch mode's benchmark: the time from saving Problem1.java to the verdict of part 1.1a on the console (the
 * progress line after its row), as a student sees it. It runs {@link Watch} on a copy of the course's exercises,
 * saves the reference Problem1.java with a changed comment {@code rounds} times, and prints the first save (javac
 * and the judge still cold) and the median, min and max of the others. The times include the watch's poll
 * interval and debounce, a fresh sandbox JVM per save and the whole property of 1.1a (it passes).
 *
 * <pre>
 * mvn -q install -DskipTests
 * mvn -q -pl grader exec:java@save-to-verdict [-Drounds=10]
 * </pre>
 */
public final class SaveToVerdict {

    private SaveToVerdict() {
    }

    /** Arguments: the course root, the grader's test classes, the number of saves. */
    public static void main(String[] args) throws Exception {
        Path root = Path.of(args[0]).toAbsolutePath().normalize();
        Path testClasses = Path.of(args[1]);
        int rounds = args.length > 2 && args[2].matches("\\d+") ? Integer.parseInt(args[2]) : 10;
        Path solution = root.resolve("solutions/src/main/java/dev/shardlings/course/Problem1.java");
        if (!Files.isRegularFile(solution)) {
            System.err.println("The benchmark saves the reference Problem1.java: " + solution + " is missing.");
            System.exit(2);
        }
        Path dir = Files.createTempDirectory("shardlings-save-to-verdict-");
        Path files = dir.resolve("course").resolve(SubmissionGrading.EXERCISES);
        Files.createDirectories(files);
        for (String f : CourseClasses.FILES) {
            Files.copy(root.resolve(SubmissionGrading.EXERCISES).resolve(f), files.resolve(f));
        }
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        Watch watch = new Watch(new PrintStream(bytes, true, StandardCharsets.UTF_8));
        Thread loop = new Thread(() -> new CommandLine(watch).execute("--course=" + dir.resolve("course"),
                "--test-classes=" + testClasses, "--results=" + dir.resolve("results.json"), "--only=Part11a*"),
                "watch");
        loop.start();
        List<Double> seconds = new ArrayList<>();
        try {
            await(bytes, 0, "Watching ");
            String text = Files.readString(solution);
            for (int i = 0; i < rounds; i++) {
                int mark = bytes.size();
                long t0 = System.nanoTime();
                Files.writeString(files.resolve("Problem1.java"), text + "\n// save " + i + "\n");
                String verdict = await(bytes, mark, "Progress: ");
                seconds.add((System.nanoTime() - t0) / 1e9);
                System.out.printf(Locale.ROOT, "save %d: %.2f s %s%n", i, seconds.get(i), verdict.lines()
                        .filter(l -> l.startsWith("(compiled in")).findFirst().orElse(""));
                if (!verdict.lines().anyMatch(l -> l.startsWith("1.1a ") && l.contains("PASS"))) {
                    throw new IllegalStateException("1.1a did not pass:\n" + verdict);
                }
            }
        } finally {
            watch.close();
            loop.join();
            dev.shardlings.grader.host.Folders.deleteRecursively(dir);
        }
        List<Double> warm = seconds.subList(1, seconds.size()).stream().sorted().toList();
        System.out.printf(Locale.ROOT, "save → verdict of part 1.1a, %d cores, %s %s%n",
                Runtime.getRuntime().availableProcessors(), System.getProperty("java.vendor"), Runtime.version());
        System.out.printf(Locale.ROOT, "first save: %.2f s%n", seconds.get(0));
        if (!warm.isEmpty()) {
            System.out.printf(Locale.ROOT, "next %d saves: median %.2f s, min %.2f s, max %.2f s%n", warm.size(),
                    warm.get(warm.size() / 2), warm.get(0), warm.get(warm.size() - 1));
        }
        System.exit(0);
    }

    /** The output from byte {@code from} on, once it holds {@code text} (polled every 5 ms). */
    private static String await(ByteArrayOutputStream bytes, int from, String text) throws InterruptedException {
        long end = System.nanoTime() + 600_000_000_000L;
        while (System.nanoTime() < end) {
            byte[] all = bytes.toByteArray();
            String since = new String(all, from, all.length - from, StandardCharsets.UTF_8);
            if (since.contains(text)) {
                return since;
            }
            Thread.sleep(5);
        }
        throw new IllegalStateException("no \"" + text + "\" in 10 minutes:\n" + bytes.toString(StandardCharsets.UTF_8));
    }
}
