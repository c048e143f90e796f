package dev.shardlings.grader.grade;

import dev.shardlings.grader.parts.TimedResult;
import dev.shardlings.grader.checks.ModelledTime;
import dev.shardlings.grader.parts.Part;
import org.junit.jupiter.api.DynamicContainer;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.TestReporter;
import org.junit.platform.engine.TestSource;
import org.junit.platform.engine.support.descriptor.UriSource;

import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.stream.Stream;

/**
 * The graded parts as JUnit tests: one container per part (its test source is {@code part:<number>}), holding the
 * part's property and examples, or its modelled-time test. The judge ({@code IsolatedGrading}) runs this class
 * once per part after {@link #select}; {@code mvn verify} runs every part through {@code GradedPartsTest}.
 *
 * <p>A part's property runs before its fixed examples: among failures of the same kind the report shows the first
 * ({@code GradingListener}), and the property's case is the one jqwik shrank, so the case a student reads is the
 * smallest failing one found, not a book-sized example that happened to run first.
 */
public class GradedParts {

    /** The key under which a passing check publishes a line for the report (JUnit's TestReporter). */
    public static final String NOTE = "grade.note";
    /** The key under which a performance part publishes its modelled time in µs (for Gradescope's leaderboard). */
    public static final String MODELLED_US = "grade.modelled_us";
    /** The scheme of a part container's test source: {@code part:1.1a}. */
    public static final String SCHEME = "part";

    /** The parts the next run grades; all by default. */
    private static volatile List<Part> selected;

    /** Grades only {@code parts} in the runs that follow (null: every part). */
    public static void select(List<Part> parts) {
        selected = parts == null ? null : List.copyOf(parts);
    }

    /** The part a container's test source names, if it is a part's. */
    public static Optional<String> partNumber(TestSource source) {
        if (source instanceof UriSource u && SCHEME.equals(u.getUri().getScheme())) {
            return Optional.of(u.getUri().getSchemeSpecificPart());
        }
        return Optional.empty();
    }

    @TestFactory
    Stream<DynamicContainer> parts(TestReporter reporter) {
        List<Part> parts = selected == null ? Course.all() : selected;
        return parts.stream().map(p -> DynamicContainer.dynamicContainer(p.number() + " " + p.title(),
                URI.create(SCHEME + ":" + p.number()), tests(p, reporter)));
    }

    /** The tests of one part. */
    static Stream<DynamicTest> tests(Part part, TestReporter reporter) {
        if (part.grading() instanceof Part.Timed t) {
            return Stream.of(DynamicTest.dynamicTest("modelledTimeWithinTheLimit", () -> {
                TimedResult r = t.measure().get();
                reporter.publishEntry(Map.of(NOTE, r.note(), MODELLED_US, Double.toString(r.micros())));
                ModelledTime.requireFresh(part, t.setting(), r);
            }));
        }
        return cases((Part.Cases<?>) part.grading()).stream();
    }

    private static <C> List<DynamicTest> cases(Part.Cases<C> cases) {
        List<DynamicTest> tests = new ArrayList<>();
        Consumer<C> check = cases.check();
        tests.add(DynamicTest.dynamicTest(cases.property().name(),
                () -> PropertyRun.run(cases.property(), check)));
        for (Part.Example<C> e : cases.examples()) {
            tests.add(DynamicTest.dynamicTest(e.name(), () -> check.accept(e.value())));
        }
        return tests;
    }
}
