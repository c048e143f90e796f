package dev.shardlings.grader.parts;

import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * Which checks ran for which part and course method, in this JVM. {@link Guard#run} says which part is being
 * graded, the {@link CourseMethod} proxy which method was called last; a check records its {@link Check} kind
 * under both. Only the judge's own code writes here (checks never run in the sandbox). Thread-safe.
 */
public final class CheckLog {

    /** The part and method the checks on this thread are about. */
    private static final ThreadLocal<Part> PART = new ThreadLocal<>();
    private static final ThreadLocal<CourseMethod<?>> METHOD = new ThreadLocal<>();
    private static final Map<Part, Map<CourseMethod<?>, Set<Check>>> RAN = new LinkedHashMap<>();

    private CheckLog() {
    }

    /** The part whose checks follow on this thread. */
    public static void part(Part part) {
        PART.set(part);
        METHOD.remove();
    }

    /** The course method called last on this thread: the checks that follow are about its result. */
    public static void method(CourseMethod<?> method) {
        METHOD.set(method);
    }

    /** Records that a check of this kind ran on this thread's part and method (nothing outside a part). */
    public static void ran(Check... checks) {
        Part p = PART.get();
        if (p == null) {
            return;
        }
        CourseMethod<?> m = METHOD.get();
        synchronized (RAN) {
            Set<Check> set = RAN.computeIfAbsent(p, k -> new LinkedHashMap<>())
                    .computeIfAbsent(m, k -> EnumSet.noneOf(Check.class));
            set.addAll(java.util.List.of(checks));
        }
    }

    /** The kinds of check that ran for this part after a call of this method (null: calls not through a proxy). */
    public static Set<Check> ran(Part part, CourseMethod<?> method) {
        synchronized (RAN) {
            Set<Check> s = RAN.getOrDefault(part, Map.of()).get(method);
            return s == null ? Set.of() : EnumSet.copyOf(s);
        }
    }

    /** Forgets everything recorded (tests). */
    public static void clear() {
        synchronized (RAN) {
            RAN.clear();
        }
    }
}
