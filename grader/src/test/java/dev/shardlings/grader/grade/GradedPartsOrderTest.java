package dev.shardlings.grader.grade;

import dev.shardlings.grader.parts.Part;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Every part's property runs before its fixed examples, in the examples' declared order: among failures of one kind
 * the report shows the first, so a wrong program is shown on the case jqwik shrank (e.g. one device, A[1, 1]) rather
 * than on the book's example (X=4, Y=2, A[12, 4]) that happened to run first.
 */
class GradedPartsOrderTest {

    @Test
    void thePropertyRunsFirstThenTheExamplesInOrder() {
        for (Part p : Course.all()) {
            if (p.grading() instanceof Part.Cases<?> cases) {
                List<String> names = GradedParts.tests(p, entry -> { }).map(DynamicTest::getDisplayName).toList();
                List<String> expected = new java.util.ArrayList<>(List.of(cases.property().name()));
                cases.examples().forEach(e -> expected.add(e.name()));
                assertEquals(expected, names, p.number());
            }
        }
    }
}
