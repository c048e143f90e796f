package dev.shardlings.grader.parts;

import dev.shardlings.spmd.ShardedArray;
import net.jqwik.api.Arbitrary;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.function.BinaryOperator;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * One graded part of the course: its number, title, points, the course methods it calls, where its docs are, a
 * hint, the requirements its stubs state and how it is graded. Every part is one row of its chapter's table
 * ({@code chapter0.Chapter0Checks}, …, built with {@link Chapter#part}); {@code grade.Course} lists the chapters, and
 * the score table, results.json, Classroom's workflow and the requirement checks are derived from the rows.
 */
public final class Part {

    private final Chapter chapter;
    private final String number;
    private final String title;
    private final int points;
    private final String name;
    private final List<CourseMethod<?>> methods;
    private final String docs;
    private final String hint;
    private final List<Requirement> requirements;
    private final Grading grading;

    private Part(Builder b, Grading grading) {
        this.chapter = b.chapter;
        this.number = b.number;
        this.title = b.title;
        this.points = b.points;
        this.name = b.name;
        this.methods = List.copyOf(b.methods);
        this.docs = Objects.requireNonNull(b.docs, () -> "part " + b.number + " has no docs section");
        this.hint = Objects.requireNonNull(b.hint, () -> "part " + b.number + " has no hint");
        this.requirements = List.copyOf(b.requirements);
        this.grading = grading;
        if (methods.isEmpty()) {
            throw new IllegalStateException("part " + number + " calls no course method");
        }
    }

    /**
     * A chapter (or problem) of the course: the name and topic its parts are tagged with, and the course class
     * its parts' stubs live in.
     *
     * @param name      e.g. {@code "chapter 0"}, {@code "problem 3"}
     * @param topic     e.g. {@code "collectives"}
     * @param className the course class, e.g. {@code "Chapter0"}
     */
    public record Chapter(String name, String topic, String className) {

        private static final String SHARDED = ShardedArray.class.getName();

        /**
         * A course method of this chapter's class, called through {@code via} with arguments of these types.
         * {@code CourseContractTest} compiles {@code via f = Class::method} against exercises/ and solutions/.
         */
        public <F> CourseMethod<F> method(String method, Class<F> via, Class<?> returns, Class<?>... params) {
            return new CourseMethod<>(via, via.getCanonicalName(), className, method, returns, params);
        }

        /** A course method of two ShardedArrays, called as a {@code BinaryOperator}. */
        @SuppressWarnings({"unchecked", "rawtypes"})
        public CourseMethod<BinaryOperator<ShardedArray>> binary(String method) {
            return new CourseMethod<>((Class) BinaryOperator.class, "java.util.function.BinaryOperator<"
                    + SHARDED + ">", className, method, ShardedArray.class, ShardedArray.class, ShardedArray.class);
        }

        /** A course method of one ShardedArray, called as a {@code Function}. */
        @SuppressWarnings({"unchecked", "rawtypes"})
        public CourseMethod<Function<ShardedArray, ShardedArray>> unary(String method) {
            return new CourseMethod<>((Class) Function.class, "java.util.function.Function<" + SHARDED + ", "
                    + SHARDED + ">", className, method, ShardedArray.class, ShardedArray.class);
        }

        /**
         * Starts the row of a part.
         *
         * @param number the part number, e.g. {@code "1.1a"} (a performance part ends in {@code p})
         * @param title  a short title
         * @param points points for a pass
         * @param name   the part's name in a selection pattern: part 0.8 "RingShift" is selected by
         *               {@code -Dtest='Part08RingShiftTest'} (and {@code 'Part08*'})
         */
        public Builder part(String number, String title, int points, String name) {
            return new Builder(this, number, title, points, name);
        }
    }

    /** A part's row, filled in order: its course methods, docs, hint and requirements, then how it is graded. */
    public static final class Builder {
        private final Chapter chapter;
        private final String number;
        private final String title;
        private final int points;
        private final String name;
        private final List<CourseMethod<?>> methods = new ArrayList<>();
        private final List<Requirement> requirements = new ArrayList<>();
        private String docs;
        private String hint;

        private Builder(Chapter chapter, String number, String title, int points, String name) {
            this.chapter = chapter;
            this.number = number;
            this.title = title;
            this.points = points;
            this.name = name;
        }

        /** The course methods the part calls, in the order the stub file lists them. */
        public Builder calls(CourseMethod<?>... methods) {
            this.methods.addAll(List.of(methods));
            return this;
        }

        /** The docs page and section that explain the part: a page under docs/ and its heading's anchor. */
        public Builder docs(String docs) {
            this.docs = docs;
            return this;
        }

        /** One sentence that helps most when the values are wrong. */
        public Builder hint(String hint) {
            this.hint = hint;
            return this;
        }

        /** A clause of {@code method}'s "Graded:" line, word for word, and the kinds of check that enforce it. */
        public Builder requires(CourseMethod<?> method, String clause, Check... checks) {
            requirements.add(Requirement.of(method, clause, checks));
            return this;
        }

        /** Requirements stated elsewhere (the performance parts', in the docs). */
        public Builder requires(List<Requirement> rows) {
            requirements.addAll(rows);
            return this;
        }

        /**
         * Graded by a jqwik property over {@code cases} with a fixed seed, and fixed examples; every case goes
         * through {@code check}, which throws a {@link GradingFailure} when the implementation is wrong.
         */
        public <C> Part graded(Property<C> property, List<Example<C>> examples, Consumer<C> check) {
            return new Part(this, new Cases<>(property, List.copyOf(examples), check));
        }

        /**
         * A performance part: {@code measure} models the program's time (after checking it), and the grade
         * compares it with the reference stored for {@code setting}.
         */
        public Part timed(TimedSetting setting, Supplier<TimedResult> measure) {
            return new Part(this, new Timed(setting, measure));
        }
    }

    /** How a part is graded. */
    public sealed interface Grading permits Cases, Timed {
    }

    /** A property with a fixed seed and fixed examples, each case checked by {@code check}. */
    public record Cases<C>(Property<C> property, List<Example<C>> examples, Consumer<C> check) implements Grading {
    }

    /** The modelled time of the part's program, against the reference for {@code setting}. */
    public record Timed(TimedSetting setting, Supplier<TimedResult> measure) implements Grading {
    }

    /**
     * A property: {@code tries} cases drawn from {@code cases} with a fixed {@code seed}, shrunk by jqwik when one
     * fails.
     *
     * @param name the test's name (its place among the part's tests follows jqwik's method order)
     */
    public record Property<C>(String name, int tries, String seed, Supplier<Arbitrary<C>> cases) {
    }

    /** A fixed example: a named case. */
    public record Example<C>(String name, C value) {
    }

    /** A fixed example. */
    public static <C> Example<C> example(String name, C value) {
        return new Example<>(name, value);
    }

    /** A property over {@code cases}. */
    public static <C> Property<C> property(String name, int tries, String seed, Supplier<Arbitrary<C>> cases) {
        return new Property<>(name, tries, seed, cases);
    }

    /** The part number, e.g. {@code "1.1a"} (Gradescope's {@code number}). */
    public String number() {
        return number;
    }

    /** A short title. */
    public String title() {
        return title;
    }

    /** Points for a pass. */
    public int points() {
        return points;
    }

    /** The course methods the part's checks call, in the order the stub file lists them. */
    public List<CourseMethod<?>> methods() {
        return methods;
    }

    /** The requirements of the part, in the order its stubs state them. */
    public List<Requirement> requirements() {
        return requirements;
    }

    /** Every kind of check some requirement of this part names for calls of {@code method}. */
    public Set<Check> checksOf(CourseMethod<?> method) {
        EnumSet<Check> out = EnumSet.noneOf(Check.class);
        for (Requirement r : requirements) {
            if (r.method() == method) {
                out.addAll(r.checks());
            }
        }
        return out;
    }

    /** How the part is graded. */
    public Grading grading() {
        return grading;
    }

    /** The chapter the part belongs to. */
    public Chapter chapter() {
        return chapter;
    }

    /**
     * The name a selection pattern ({@code -Dtest=…}, {@code --only}) matches: {@code Part08RingShiftTest} for part
     * 0.8, {@code Part12aRollWithinShardsTest} for 1.2a, {@code Part30PerformanceTest} for 3.0p.
     */
    public String selectionName() {
        String[] n = number.replace("p", "").split("\\.");
        String code = n[0].equals("0") ? (n[1].length() == 1 ? "0" + n[1] : n[1]) : n[0] + n[1];
        return "Part" + code + name + "Test";
    }

    /** Where the student's stub is: {@code exercises/src/main/java/dev/shardlings/course/Problem1.java → perShardMean}. */
    public String startAt() {
        return "exercises/src/main/java/dev/shardlings/course/" + methods.get(0).className() + ".java → "
                + String.join(" / ", methods.stream().map(CourseMethod::methodName).toList());
    }

    /** The docs page and section that explain the part. */
    public String docs() {
        return docs;
    }

    /** One sentence that helps most when the values are wrong. */
    public String hint() {
        return hint;
    }

    /**
     * Gradescope tags: the chapter ("chapter 0", "problem 3"), its topic, and "modelled time" for a performance
     * part; instructors filter the class's results by them.
     */
    public List<String> tags() {
        return isPerformance() ? List.of(chapter.name(), chapter.topic(), "modelled time")
                : List.of(chapter.name(), chapter.topic());
    }

    /** True for the modelled-time parts (3.0p …), which score a performance figure rather than a program. */
    public boolean isPerformance() {
        return number.endsWith("p");
    }

    @Override
    public String toString() {
        return "part " + number;
    }
}
