package dev.shardlings.docs;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * No part needs an API a student cannot find: every framework method and constructor the solutions call is named
 * in an API table of a docs page (see {@link ApiCoverage} for the rule). The fixture proves the check catches a
 * newly used undocumented method, resolved by attribution where the name alone would mislead.
 */
class ApiCoverageTest {

    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    private static final Path FIXTURES = Path.of("src/test/resources/api-coverage").toAbsolutePath();
    private static final String CLASS_PATH = System.getProperty("java.class.path");

    private static List<Path> javaFiles(Path dir) throws IOException {
        try (Stream<Path> s = Files.walk(dir)) {
            return s.filter(p -> p.toString().endsWith(".java")).sorted().toList();
        }
    }

    private static Map<ApiCoverage.Api, List<String>> fixture;

    /** The fixture's calls, attributed once for both tests that read them. */
    private static synchronized Map<ApiCoverage.Api, List<String>> fixtureCalls() {
        if (fixture == null) {
            fixture = ApiCoverage.calls(List.of(FIXTURES.resolve("Fixture.java")), CLASS_PATH, FIXTURES);
        }
        return fixture;
    }

    private static List<Path> pages() throws IOException {
        try (Stream<Path> s = Files.list(ROOT.resolve("docs"))) {
            return s.filter(p -> p.toString().endsWith(".md")).sorted().toList();
        }
    }

    @Test
    void everyFrameworkMethodTheSolutionsCallIsInTheDocsApiTables() throws IOException {
        Path solutions = ROOT.resolve("solutions/src/main/java/dev/shardlings/course");
        // a student release has no solutions: the check belongs to the instructor's build
        assumeTrue(Files.isDirectory(solutions), "no solutions/ here (a student release)");
        Map<ApiCoverage.Api, List<String>> calls = ApiCoverage.calls(javaFiles(solutions), CLASS_PATH, ROOT);
        assertTrue(calls.size() > 40, "expected the solutions to call the framework, found " + calls.keySet());
        String report = ApiCoverage.report(calls, ApiCoverage.sections(pages()), ROOT);
        assertEquals("", report, "framework API the solutions use that no docs page's API table names:\n" + report);
    }

    @Test
    void aNewlyUsedUndocumentedMethodIsCaughtWithWhereItIsCalledAndWhereToAddIt() throws IOException {
        // Fixture.java calls ShardedArray.add (documented in fixture-docs.md), NDArray.mean through a shardMap
        // lambda parameter (the page documents mean for ShardedArray only: only attribution knows the type) and
        // Mesh.axisSize (named only in the table of the Collectives section, whose prose mentions a Mesh: not the
        // Mesh class's own section)
        Map<ApiCoverage.Api, List<String>> calls = fixtureCalls();
        List<ApiCoverage.Section> sections = ApiCoverage.sections(List.of(FIXTURES.resolve("fixture-docs.md")));
        String report = ApiCoverage.report(calls, sections, FIXTURES);
        assertFalse(report.isEmpty());
        assertTrue(report.contains("NDArray.mean(KeepDims, int...) is called by the solutions but named in no docs"
                + " API table\n  called at: Fixture.java:19\n  add a row (or a name in a row) for it to"
                + " fixture-docs.md (section \"NDArray\")\n"), report);
        assertTrue(report.contains("Mesh.axisSize(String) is called by the solutions but named in no docs API table\n"
                + "  called at: Fixture.java:20\n"), report);
        assertFalse(report.contains("ShardedArray.add"), report);
        assertFalse(report.contains("ShardedArray.mean"), report);
    }

    @Test
    void onlyTheTableOfTheClassesOwnSectionCounts() {
        List<ApiCoverage.Section> sections = ApiCoverage.sections(List.of(FIXTURES.resolve("fixture-docs.md")));
        ApiCoverage.Api axisSize = fixtureCalls().keySet().stream()
                .filter(a -> a.signature().equals("Mesh.axisSize(String)")).findFirst().orElseThrow();
        ApiCoverage.Section collectives = sections.stream().filter(s -> s.heading().equals("Collectives"))
                .findFirst().orElseThrow();
        assertTrue(collectives.tableRows().stream().anyMatch(r -> r.contains("`axisSize`")), "the fixture's trap");
        assertFalse(collectives.isSectionOf(axisSize));
        assertFalse(ApiCoverage.documented(axisSize, sections));
    }

    @Test
    void overloadsResolveToTheExecutableJavacChose() {
        List<String> signatures = fixtureCalls().keySet().stream().map(ApiCoverage.Api::signature).toList();
        assertTrue(signatures.contains("ShardedArray.add(ShardedArray)"), signatures.toString());
        assertTrue(signatures.contains("ShardedArray.add(double)"), signatures.toString());
        assertTrue(signatures.contains("ShardedArray.mean(int...)"), signatures.toString());
        assertTrue(signatures.contains("NDArray.mean(KeepDims, int...)"), signatures.toString());
    }
}
