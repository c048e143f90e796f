package dev.shardlings.grader.judge;

import dev.shardlings.ExerciseNotDone;
import dev.shardlings.grader.parts.CheckLog;
import dev.shardlings.grader.parts.CourseMethod;
import dev.shardlings.grader.parts.Part;
import dev.shardlings.grader.host.Sandbox;
import dev.shardlings.spmd.CollectiveMismatchException;
import dev.shardlings.spmd.DeviceFailureException;
import dev.shardlings.grader.sandbox.Wire;
import dev.shardlings.events.Trace;
import dev.shardlings.events.Tracing;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
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

    private static final AtomicInteger COUNT = new AtomicInteger();
    /** How long the judge waits beyond a call's limit before it gives up on its own thread. */
    private static final long BACKSTOP_MILLIS = 15_000;
    /** The most characters of a student's exception message a report quotes. */
    static final int MESSAGE_CAP = 2000;

    private Guard() {
    }

    /**
     * Runs {@code call} with the default time limit.
     *
     * @param part     the part under test (for pointers in the report)
     * @param caseText the test case in words (mesh, shapes, parameters)
     * @return the call's result and trace, with the part and case for the checks that follow
     * @throws GradingFailure if the call throws, returns null, or runs out of time
     */
    public static <T> CaseRun<T> run(Part part, String caseText, Supplier<T> call) {
        return run(part, caseText, call, Sandbox.DEFAULT_CALL_LIMIT);
    }

    /** {@link #run(Part, String, Supplier)} with an explicit time limit. */
    public static <T> CaseRun<T> run(Part part, String caseText, Supplier<T> call, Duration limit) {
        CheckLog.part(part);
        CourseMethod<?>[] called = new CourseMethod<?>[1];
        FutureTask<Tracing.Traced<T>> task = new FutureTask<>(() -> {
            CourseMethod.limitCalls(limit);
            Tracing.Traced<T> recorded = Tracing.record(call);
            Tracing.Traced<T> local = new Tracing.Traced<>(recorded.value(), recorded.trace().withResultPrograms(
                    dev.shardlings.spmd.ResultPrograms.of(recorded.value(), recorded.trace())));
            called[0] = CourseMethod.takeLastCalled();
            // A course method ran in the sandbox: what it did was recorded there.
            Trace remote = CourseMethod.takeTrace();
            return remote == null ? local : new Tracing.Traced<>(local.value(), merge(local.trace(), remote));
        });
        Thread t = new Thread(task, "grader-part-" + part.number() + "-" + COUNT.incrementAndGet());
        t.setDaemon(true); // a student's endless loop must not keep the JVM alive
        t.start();
        Tracing.Traced<T> traced;
        try {
            try {
                traced = task.get(limit.toMillis(), TimeUnit.MILLISECONDS);
            } catch (TimeoutException e) {
                if (!CourseMethod.inSandboxCall(t)) {
                    throw e;
                }
                // The sandbox keeps the limit itself and reports what happened; this only guards the judge.
                traced = task.get(BACKSTOP_MILLIS, TimeUnit.MILLISECONDS);
            }
        } catch (TimeoutException e) {
            t.interrupt();
            throw Report.of(part, "ran longer than the time limit of " + limit.toSeconds() + " s").about(caseText)
                    .paragraph("Look for a loop that never ends, or devices waiting for each other.").noHint()
                    .failure(GradingFailure.Kind.TIMEOUT,
                            "ran longer than " + limit.toSeconds() + " s (endless loop or deadlock?)");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("grader interrupted", e);
        } catch (ExecutionException e) {
            throw failureFor(part, caseText, e.getCause());
        }
        if (traced.value() == null) {
            throw Report.of(part, "returned null").about(caseText).paragraph("Return the result array.").noHint()
                    .failure(GradingFailure.Kind.WRONG_SHAPE, "returned null");
        }
        // The task's end happens-before get() returned: called[0] is visible here.
        CheckLog.method(called[0]);
        return new CaseRun<>(part, caseText, traced.value(), traced.trace());
    }

    /** Both traces as one: the judge's own (arguments it laid out) and the sandbox's (the student's call). */
    private static Trace merge(Trace local, Trace remote) {
        List<dev.shardlings.events.ShardMapTrace> maps = new ArrayList<>(local.shardMaps());
        maps.addAll(remote.shardMaps());
        List<dev.shardlings.events.TraceEvent> host = new ArrayList<>(local.hostEvents());
        host.addAll(remote.hostEvents());
        // the value is the sandbox's: its arrays' programs are the remote ones, after the judge's own
        List<Integer> results = remote.resultPrograms().stream()
                .map(k -> k == Trace.NO_PROGRAM ? k : k + local.shardMaps().size()).toList();
        return new Trace(maps, host, Math.max(local.hostLargestAllocation(), remote.hostLargestAllocation()),
                results);
    }

    private static GradingFailure failureFor(Part part, String caseText, Throwable t) {
        if (t instanceof Sandbox.SandboxFailure f) {
            return sandboxFailure(part, caseText, f);
        }
        if (t instanceof CourseMethod.StudentException s) {
            return studentFailure(part, caseText, s);
        }
        Throwable root = t;
        if (t instanceof DeviceFailureException d && d.getCause() != null) {
            root = d.getCause();
        }
        if (root instanceof ExerciseNotDone) {
            return notDone(part);
        }
        String what = t instanceof DeviceFailureException || t instanceof CollectiveMismatchException
                ? t.getMessage() : t.getClass().getName() + (t.getMessage() == null ? "" : ": " + t.getMessage());
        String reason = t instanceof CollectiveMismatchException
                ? "devices' collectives did not match"
                : "threw " + root.getClass().getSimpleName() + firstLine(root.getMessage());
        return Report.of(part, "threw an exception").about(caseText).paragraph(what).paragraph(shortTrace(root))
                .noHint().failure(GradingFailure.Kind.EXCEPTION, reason, t);
    }

    /** A failure of the sandbox while this part ran: the JVM died, a limit passed, or the protocol broke. */
    static GradingFailure sandboxFailure(Part part, String caseText, Sandbox.SandboxFailure f) {
        String printed = printed(f.output());
        return switch (f.kind()) {
            case CALL_TIMEOUT -> sandboxReport(part, caseText, "ran longer than the time limit of "
                    + f.limit().toSeconds() + " s", "Look for a loop that never ends, or devices waiting for each"
                    + " other.", printed).failure(GradingFailure.Kind.TIMEOUT,
                    "ran longer than " + f.limit().toSeconds() + " s (endless loop or deadlock?)");
            case PART_TIMEOUT -> sandboxReport(part, caseText, "ran longer than the time limit of "
                    + f.limit().toSeconds() + " s for a whole part", "The grading JVM was stopped while it ran."
                    + " Look for a loop that never ends, devices waiting for each other, or work far larger than the"
                    + " task needs.", printed).failure(GradingFailure.Kind.TIMEOUT,
                    "ran longer than " + f.limit().toSeconds() + " s in all (endless loop or deadlock?)");
            case BOOT_TIMEOUT -> sandboxReport(part, caseText, "could not be graded: the grading JVM did not start",
                    "The JVM that runs your code did not start within " + f.limit().toSeconds() + " s, before any of"
                    + " your code ran: the machine was overloaded. This is not your code's fault; grade again.",
                    printed).failure(GradingFailure.Kind.EXCEPTION, "the grading JVM did not start within "
                    + f.limit().toSeconds() + " s (an overloaded machine, not the code)");
            case OUT_OF_MEMORY -> sandboxReport(part, caseText, "ran out of memory", "The code needed more than the"
                    + " grader's heap. Look for an array far larger than the task needs, or one allocated in a loop"
                    + " and kept.", printed).failure(GradingFailure.Kind.EXCEPTION,
                    "ran out of memory (OutOfMemoryError): the grading JVM stopped");
            case EXITED -> sandboxReport(part, caseText, "stopped the grading JVM", "While this part ran, the JVM"
                    + " that runs your code " + f.getMessage() + ". Code under grading must return its result; it"
                    + " must never call System.exit or Runtime.halt. The other parts were graded in a new JVM.",
                    printed).failure(GradingFailure.Kind.EXCEPTION,
                    "the grading JVM " + f.getMessage() + " during this part (System.exit or Runtime.halt?)");
            case LEFT_THREADS -> {
                List<String> left = List.of(f.getMessage().split(", "));
                yield sandboxReport(part, caseText, "left threads running", "These threads were started by the"
                        + " part's code and were still running when it returned: " + clip(f.getMessage(), 500)
                        + ". Code that starts a thread must also stop it (join it, or shut its executor down) before"
                        + " it returns.", printed).failure(GradingFailure.Kind.EXCEPTION,
                        "left " + left.size() + " thread(s) running: " + clip(f.getMessage(), 100));
            }
            case OWN_THREADS -> sandboxReport(part, caseText, "started threads of its own", "The code "
                    + f.getMessage() + " (threads, executors or CompletableFuture.supplyAsync). The grader reads"
                    + " what your code did from the trace of the calling thread and of shardMap's devices; work on"
                    + " other threads is invisible to it. Compute on the calling thread and inside shardMap only.",
                    printed).failure(GradingFailure.Kind.EXCEPTION,
                    f.getMessage() + ": graded work must run where it is traced");
            case UNTRACED_RESULT -> sandboxReport(part, caseText, "returned an answer it did not compute here",
                    "The code " + clip(f.getMessage(), 300) + ". Every array a graded method returns must be made by"
                    + " the framework's operations during that call, where the trace sees them: not kept from an"
                    + " earlier call, and not computed on another thread.", printed)
                    .failure(GradingFailure.Kind.EXCEPTION, clip(f.getMessage(), 160));
            case PROTOCOL -> sandboxReport(part, caseText, "interfered with the grader", "The JVM that runs your"
                    + " code sent the grader something that was not the answer to its question ("
                    + clip(f.getMessage(), 300) + "). Your code must not write to the process's standard output"
                    + " stream directly (System.out is fine) or talk to the grader in any other way.", printed)
                    .failure(GradingFailure.Kind.EXCEPTION, "broke the grader's protocol: " + clip(f.getMessage(), 100));
        };
    }

    private static Report sandboxReport(Part part, String caseText, String what, String explanation,
                                        String printed) {
        return Report.of(part, what).about(caseText).paragraph(explanation).lines(printed).noHint();
    }

    /** The stub still throws ExerciseNotDone: where to start, and what to read. */
    private static GradingFailure notDone(Part part) {
        return Report.of(part, "is not implemented yet").about("Start at " + part.startAt() + " and read "
                        + part.docs() + ".").noHint()
                .failure(GradingFailure.Kind.NOT_DONE,
                        "not implemented yet: start at " + part.startAt().replaceFirst("^[^ ]*/", ""));
    }

    /** An exception of student code in the sandbox. */
    private static GradingFailure studentFailure(Part part, String caseText, CourseMethod.StudentException s) {
        Wire.Thrown t = s.thrown();
        switch (t.kind()) {
            case NOT_DONE:
                return notDone(part);
            case NO_SUCH_METHOD:
                return Report.of(part, "could not be called").about("The grader calls " + part.startAt()
                                + " with the stub's exact signature, and found no such public static method ("
                                + clip(t.message(), 300) + "). Keep the class, name and parameter types of the stub.")
                        .noHint().failure(GradingFailure.Kind.EXCEPTION, "method not found: keep the stub's signature");
            default:
                break;
        }
        String rootSimple = t.rootClass().substring(t.rootClass().lastIndexOf('.') + 1);
        String what = t.kind() == Wire.ThrownKind.DEVICE_FAILURE || t.kind() == Wire.ThrownKind.COLLECTIVE_MISMATCH
                ? t.message() : t.className() + (t.message().isEmpty() || "null".equals(t.message()) ? ""
                : ": " + t.message());
        String reason = t.kind() == Wire.ThrownKind.COLLECTIVE_MISMATCH ? "devices' collectives did not match"
                : "threw " + rootSimple + firstLine(t.rootMessage());
        return Report.of(part, "threw an exception").about(caseText).paragraph(clip(what, MESSAGE_CAP))
                .paragraph(shortTrace(t.stack())).noHint().failure(GradingFailure.Kind.EXCEPTION, reason);
    }

    /** What student code printed, for a report: the kept head and tail, or nothing. */
    private static String printed(String output) {
        if (output == null || output.isBlank()) {
            return "";
        }
        List<String> lines = output.strip().lines().toList();
        List<String> last = lines.subList(Math.max(0, lines.size() - 15), lines.size());
        return "Last lines the grading JVM printed:\n  " + clip(String.join("\n  ", last), MESSAGE_CAP) + "\n";
    }

    /** At most {@code max} characters of {@code s}: student text in a report is capped. */
    public static String clip(String s, int max) {
        if (s == null) {
            return "";
        }
        return s.length() <= max ? s : s.substring(0, max) + "… [" + (s.length() - max) + " characters cut]";
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
        return shortTrace(sw.toString());
    }

    private static String shortTrace(String printed) {
        List<String> frames = printed.lines().skip(1).filter(l -> l.contains("dev.shardlings.course")
                        || l.contains("dev.shardlings.array") || l.contains("dev.shardlings.spmd.Collectives"))
                .limit(8).map(l -> clip(l, 300)).toList();
        // No frame of course code (a lambda of a test, a framework check): say nothing rather than an empty list.
        return frames.isEmpty() ? "" : "Where it happened:\n" + String.join("\n", frames) + "\n";
    }
}
