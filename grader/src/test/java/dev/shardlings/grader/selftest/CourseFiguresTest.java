package dev.shardlings.grader.selftest;

import dev.shardlings.grader.grade.Course;
import dev.shardlings.grader.parts.Part;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The figures students read are the part registry's ({@link Course}): the total points and parts that README.md and
 * the student release's README quote, the performance parts they list, and the parts each chapter's row of
 * docs/README.md names. They were written by hand and went stale as chapters were added (issue 43: the release
 * still said 105 points in 54 parts when the course had 112 in 57), so each is parsed here and compared. A list may
 * use ranges ("6.1 – 6.5", "3.0p … 4.2p"): a range is every part from its first to its last in
 * {@link Course#all()}'s order, the programs then the performance parts. This package is not in the release, so
 * the test reads the instructor's README, and the release's from the grader's resources.
 */
class CourseFiguresTest {

    private static final Path COURSE = Path.of("..").toAbsolutePath().normalize();
    private static final Path README = COURSE.resolve("README.md");
    private static final Path DOCS_README = COURSE.resolve("docs/README.md");
    private static final Path RELEASE_README =
            COURSE.resolve("grader/src/main/resources/dev/shardlings/grader/tools/release/README.md");

    /** A part number (0.10, 1.1a, 7.2bp), or a range of them written with an ellipsis or an en dash. */
    private static final Pattern PARTS = Pattern.compile("(\\d+\\.\\d+[a-z]*)(?:\\s*[…–]\\s*(\\d+\\.\\d+[a-z]*))?");

    private static final int POINTS = Course.all().stream().mapToInt(Part::points).sum();
    private static final int COUNT = Course.all().size();

    @Test
    void theReadmesQuoteTheCourseTotals() throws IOException {
        String readme = text(README);
        assertEquals(List.of(String.valueOf(COUNT)), all(readme, "lists all (\\d+) parts"), "README.md");
        for (Path doc : List.of(README, RELEASE_README)) {
            List<String> progress = all(text(doc), "Progress: \\d+/(\\d+) points, \\d+ of (\\d+) parts");
            assertEquals(List.of(POINTS + "/" + COUNT), progress, doc + ": the progress line's totals");
        }
    }

    @Test
    void theReadmesListThePerformanceParts() throws IOException {
        List<String> performance = Course.all().stream().filter(Part::isPerformance).map(Part::number).toList();
        for (Path doc : List.of(README, RELEASE_README)) {
            List<String> lists = all(text(doc), "parts ending in `p` \\(([^)]*)\\)");
            assertEquals(1, lists.size(), doc + " lists the performance parts once");
            assertEquals(performance, named(lists.get(0)), doc + ": the performance parts");
        }
    }

    @Test
    void eachChapterRowOfTheDocsReadmeNamesItsParts() throws IOException {
        String docs = Files.readString(DOCS_README);
        Map<String, List<String>> course = new LinkedHashMap<>();
        Map<String, List<String>> rows = new LinkedHashMap<>();
        for (List<Part> chapter : Course.CHAPTERS) {
            String page = chapter.get(0).chapter().name().replace(' ', '-') + ".md";
            Matcher row = Pattern.compile("(?m)^\\| \\[" + Pattern.quote(page) + "\\].*\\| ([^|]*) \\|$").matcher(docs);
            assertTrue(row.find(), "docs/README.md has no row for " + page);
            course.put(page, chapter.stream().map(Part::number).sorted().toList());
            rows.put(page, named(row.group(1)).stream().sorted().toList());
        }
        assertEquals(course, rows, "the parts each chapter's row of docs/README.md names");
    }

    /** The part numbers a list names, its ranges expanded. */
    private static List<String> named(String list) {
        List<String> numbers = Course.all().stream().map(Part::number).toList();
        List<String> out = new ArrayList<>();
        Matcher m = PARTS.matcher(list);
        while (m.find()) {
            String first = m.group(1);
            String last = m.group(2) == null ? first : m.group(2);
            assertTrue(numbers.contains(first) && numbers.contains(last), "no such part in \"" + m.group() + "\"");
            out.addAll(numbers.subList(numbers.indexOf(first), numbers.indexOf(last) + 1));
        }
        return out;
    }

    /** Every match of {@code regex}, its groups joined with "/". */
    private static List<String> all(String text, String regex) {
        List<String> out = new ArrayList<>();
        Matcher m = Pattern.compile(regex).matcher(text);
        while (m.find()) {
            List<String> groups = new ArrayList<>();
            for (int g = 1; g <= m.groupCount(); g++) {
                groups.add(m.group(g));
            }
            out.add(String.join("/", groups));
        }
        return out;
    }

    /** A page with its line breaks as spaces, so that a sentence wrapped over lines still matches. */
    private static String text(Path page) throws IOException {
        return Files.readString(page).replaceAll("\\s+", " ");
    }
}
