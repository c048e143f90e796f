package dev.shardlings.grader;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.platform.engine.discovery.DiscoverySelectors;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.core.LauncherConfig;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;

/**
 * The child side of {@link IsolatedGrading}: runs graded parts one after another in this JVM and reports each to a
 * progress file, a line per event — {@code START <part>} before it, {@code DONE <part> <result as JSON>} after it —
 * so that the parent knows which part was running if this JVM dies (System.exit, Runtime.halt, a crash) or is
 * killed at the time limit.
 *
 * <p>After each part it looks for threads the part left behind. Student code still running on any thread (an
 * endless loop the Guard gave up on, or a thread the student started) would slow or disturb every later part, so
 * this JVM then stops with {@link #EXIT_RESTART} and the parent starts a fresh one for the remaining parts. A
 * thread the student started and did not stop also fails the part that started it.
 *
 * <p>Usage: {@code PartRunner <progress file> <part>=<class>[,<class>…] …}
 */
public final class PartRunner {

    /** Exit status: every part ran and this JVM is clean. */
    public static final int EXIT_OK = 0;
    /** Exit status: a part left code running; the parent goes on in a new JVM. */
    public static final int EXIT_RESTART = 75;

    /** Names of the threads the runtime, JUnit and the framework own. */
    private static final List<String> OURS = List.of("shardlings-device-", "ForkJoinPool", "junit", "jqwik",
            "process reaper", "Common-Cleaner", "Attach Listener", "Signal Dispatcher", "Notification Thread",
            "Reference Handler", "Finalizer", "main", "C1 ", "C2 ", "Sweeper", "Monitor Deflation", "Service Thread",
            "grader-part-");

    private static final ObjectMapper JSON = new ObjectMapper();

    private PartRunner() {
    }

    public static void main(String[] args) throws IOException {
        Path progress = Path.of(args[0]);
        for (int a = 1; a < args.length; a++) {
            String[] spec = args[a].split("=", 2);
            Part part = Parts.byNumber(spec[0]).orElseThrow(() -> new IllegalArgumentException("no part " + spec[0]));
            append(progress, "START " + part.number());
            Set<Thread> before = Set.copyOf(Thread.getAllStackTraces().keySet());
            Results.TestResult r = run(part, Arrays.asList(spec[1].split(",")));
            Leftovers left = leftovers(before);
            if (!left.started().isEmpty() && r.passed()) {
                r = Results.TestResult.of(part, false, Reports.header(part, "left threads running") + "These"
                        + " threads were started by the part's code and were still running when it returned: "
                        + left.started() + ". Code that starts a thread must also stop it (join it, or shut its"
                        + " executor down) before it returns.\n" + Reports.pointers(part), "left "
                        + left.started().size() + " thread(s) running: " + String.join(", ", left.started()));
            }
            append(progress, "DONE " + part.number() + " " + JSON.writeValueAsString(r));
            if (left.any()) {
                System.out.flush();
                System.exit(EXIT_RESTART);
            }
        }
        System.out.flush();
        System.exit(EXIT_OK); // also ends any daemon thread the framework keeps
    }

    private static Results.TestResult run(Part part, List<String> classes) {
        GradingListener listener = new GradingListener(false);
        Launcher launcher = LauncherFactory.create(LauncherConfig.builder()
                .enableTestExecutionListenerAutoRegistration(false).build());
        LauncherDiscoveryRequest request = LauncherDiscoveryRequestBuilder.request()
                .selectors(classes.stream().map(DiscoverySelectors::selectClass).toList()).build();
        launcher.execute(request, listener);
        return listener.resultOf(part);
    }

    /**
     * What a part left behind.
     *
     * @param started names of live threads the part's code started (not the runtime's, JUnit's or ours)
     * @param any     true when some thread, ours or not, is still running the course's code
     */
    record Leftovers(List<String> started, boolean any) {
    }

    private static Leftovers leftovers(Set<Thread> before) {
        List<String> started = new ArrayList<>();
        boolean running = false;
        long deadline = System.nanoTime() + 300_000_000L; // threads that are finishing get a moment
        while (true) {
            started.clear();
            running = false;
            for (var e : Thread.getAllStackTraces().entrySet()) {
                Thread t = e.getKey();
                if (t == Thread.currentThread() || !t.isAlive()) {
                    continue;
                }
                boolean course = Arrays.stream(e.getValue())
                        .anyMatch(f -> f.getClassName().startsWith("dev.shardlings.course."));
                boolean ours = OURS.stream().anyMatch(p -> t.getName().startsWith(p));
                if (!before.contains(t) && !ours) {
                    started.add(t.getName());
                }
                running |= course || (!before.contains(t) && !ours);
            }
            if ((!running && started.isEmpty()) || System.nanoTime() > deadline) {
                return new Leftovers(List.copyOf(started), running || !started.isEmpty());
            }
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return new Leftovers(List.copyOf(started), true);
            }
        }
    }

    private static void append(Path file, String line) throws IOException {
        Files.writeString(file, line + "\n", StandardCharsets.UTF_8, StandardOpenOption.CREATE,
                StandardOpenOption.APPEND, StandardOpenOption.SYNC);
    }
}
