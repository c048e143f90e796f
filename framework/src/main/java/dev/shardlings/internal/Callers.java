package dev.shardlings.internal;

/**
 * The guard on the framework's internal entry points that must stay public for the framework's own packages
 * (installing an operation observer, recording a trace, staging a program): in a run where the framework is a
 * named module — the grader's sandbox, where course code sits in a module of its own — only the framework's
 * module may call them. On a plain class path (a student's own run, the framework's tests) every class shares
 * the unnamed module and the guard admits everyone: there is nothing to protect there, and it costs nothing.
 *
 * <p>Why by module and not by class name: names can be chosen by anyone, a module cannot be entered from
 * outside. Reflection and method handles do not help the caller either: {@link StackWalker#getCallerClass()}
 * skips their frames and reports the class that started the call.
 */
public final class Callers {

    private static final Module FRAMEWORK = Callers.class.getModule();
    /** Whether the framework runs as a named module: only then is there an outside to keep out. */
    private static final boolean GUARDED = FRAMEWORK.isNamed();
    private static final StackWalker WALKER = StackWalker.getInstance(StackWalker.Option.RETAIN_CLASS_REFERENCE);

    private Callers() {
    }

    /** True when the framework runs as a named module, so that {@link #requireFramework} refuses outsiders. */
    public static boolean guarded() {
        return GUARDED;
    }

    /**
     * Refuses a caller outside the framework's module. Call it first thing in the guarded method, passing that
     * method's caller ({@code WALKER.getCallerClass()} there, or {@link #callerOfCaller()}).
     *
     * @param caller the class that called the guarded method
     * @param what   the guarded method, for the message (e.g. "OpObservers.install")
     * @throws IllegalCallerException when {@code caller} is outside the framework's module and the framework runs
     *                                as a named module
     */
    public static void requireFramework(Class<?> caller, String what) {
        if (GUARDED && caller.getModule() != FRAMEWORK) {
            throw new IllegalCallerException(what + " is the framework's own: " + caller.getName() + " (in "
                    + caller.getModule() + ") cannot call it. A trace records what the runtime did; graded code"
                    + " can neither add to it nor hide from it.");
        }
    }

    /**
     * The class that called the method that calls this one: for guarded methods that do not keep a walker of their
     * own. Reflection and method-handle frames are skipped.
     */
    public static Class<?> callerOfCaller() {
        return WALKER.walk(s -> s.skip(2).findFirst()).map(StackWalker.StackFrame::getDeclaringClass)
                .orElse(Callers.class);
    }
}
