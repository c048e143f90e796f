package dev.shardlings.grader;

import dev.shardlings.ExerciseNotDone;
import dev.shardlings.spmd.CollectiveMismatchException;
import dev.shardlings.spmd.DeviceFailureException;
import dev.shardlings.trace.Trace;
import dev.shardlings.trace.Tracing;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * Runs one call of student code for one test case: on its own thread, under a time limit, with its trace
 * recorded. Whatever goes wrong comes back as a {@link GradingFailure} that says what happened and where to look.
 */
public final class Guard {

    /** Default time limit for one call of student code. */
    public static final Duration DEFAULT_LIMIT = Duration.ofSeconds(
            Long.getLong("grade.timeLimitSeconds", 10));

    private static final AtomicInteger COUNT = new AtomicInteger();

    private Guard() {
    }

    /** A successful call: what it returned and what it did. */
    public record Outcome<T>(T value, Trace trace) {
    }

    /**
     * Runs {@code call} with the default time limit.
     *
     * @param part     the part under test (for pointers in the report)
     * @param caseText the test case in words (mesh, shapes, parameters)
     * @throws GradingFailure if the call throws, returns null, or runs out of time
     */
    public static <T> Outcome<T> run(Part part, String caseText, Supplier<T> call) {
        return run(part, caseText, call, DEFAULT_LIMIT);
    }

    /** {@link #run(Part, String, Supplier)} with an explicit time limit. */
    public static <T> Outcome<T> run(Part part, String caseText, Supplier<T> call, Duration limit) {
        FutureTask<Tracing.Traced<T>> task = new FutureTask<>(() -> Tracing.record(call));
        Thread t = new Thread(task, "grader-part-" + part.number() + "-" + COUNT.incrementAndGet());
        t.setDaemon(true); // a student's endless loop must not keep the JVM alive
        t.start();
        Tracing.Traced<T> traced;
        try {
            traced = task.get(limit.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            t.interrupt();
            throw new GradingFailure(GradingFailure.Kind.TIMEOUT,
                    "ran longer than " + limit.toSeconds() + " s (endless loop or deadlock?)",
                    Reports.header(part, "ran longer than the time limit of " + limit.toSeconds() + " s") + caseText
                            + "\n\nLook for a loop that never ends, or devices waiting for each other.\n"
                            + Reports.pointers(part), null);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("grader interrupted", e);
        } catch (ExecutionException e) {
            throw failureFor(part, caseText, e.getCause());
        }
        if (traced.value() == null) {
            throw new GradingFailure(GradingFailure.Kind.WRONG_SHAPE, "returned null",
                    Reports.header(part, "returned null") + caseText + "\n\nReturn the result array.\n"
                            + Reports.pointers(part), null);
        }
        return new Outcome<>(traced.value(), traced.trace());
    }

    private static GradingFailure failureFor(Part part, String caseText, Throwable t) {
        Throwable root = t;
        if (t instanceof DeviceFailureException d && d.getCause() != null) {
            root = d.getCause();
        }
        if (root instanceof ExerciseNotDone) {
            return new GradingFailure(GradingFailure.Kind.NOT_DONE,
                    "not implemented yet: start at " + part.startAt().replaceFirst("^[^ ]*/", ""),
                    Reports.header(part, "is not implemented yet") + "Start at " + part.startAt() + " and read "
                            + part.docs() + ".\n", null);
        }
        String what = t instanceof DeviceFailureException || t instanceof CollectiveMismatchException
                ? t.getMessage() : t.getClass().getName() + (t.getMessage() == null ? "" : ": " + t.getMessage());
        String reason = t instanceof CollectiveMismatchException
                ? "devices' collectives did not match"
                : "threw " + root.getClass().getSimpleName() + firstLine(root.getMessage());
        return new GradingFailure(GradingFailure.Kind.EXCEPTION, reason,
                Reports.header(part, "threw an exception") + caseText + "\n\n" + what + "\n\n" + shortTrace(root)
                        + Reports.pointers(part), t);
    }

    private static String firstLine(String s) {
        if (s == null || s.isBlank()) {
            return "";
        }
        String line = s.strip().lines().findFirst().orElse("");
        return ": " + (line.length() > 100 ? line.substring(0, 100) + "…" : line);
    }

    /** The top of a stack trace, keeping frames of the student's code visible. */
    private static String shortTrace(Throwable t) {
        StringWriter sw = new StringWriter();
        t.printStackTrace(new PrintWriter(sw));
        StringBuilder sb = new StringBuilder("Where it happened:\n");
        sw.toString().lines().skip(1).filter(l -> l.contains("dev.shardlings.course") || l.contains("dev.shardlings.array")
                        || l.contains("dev.shardlings.spmd.Collectives"))
                .limit(8).forEach(l -> sb.append(l).append('\n'));
        return sb.toString();
    }
}
