package dev.shardlings.grader.grade;

import dev.shardlings.grader.checks.ModelledTime;
import dev.shardlings.grader.parts.Part;

import org.apache.commons.text.StringEscapeUtils;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/**
 * What a grade shows: the full report of every failing part, then the score table (part, points, status, one-line
 * reason), on the console and as {@code report.md} beside results.json. The text of each report is the same as
 * in results.json.
 */
public final class ScoreTable {

    /** The file written beside results.json. */
    public static final String MARKDOWN = "report.md";

    private ScoreTable() {
    }

    /**
     * Prints the reports and the table of a results.json and writes {@code report.md} beside it:
     * {@code ScoreTable <results.json>}. Run by the grade profile after the grade, so the table is the last thing a
     * student sees.
     *
     * @param args the path of results.json
     */
    public static void main(String[] args) throws IOException {
        if (args.length != 1) {
            System.err.println("usage: ScoreTable <results.json>");
            System.exit(2);
        }
        Path file = Path.of(args[0]);
        if (Files.exists(file.resolveSibling(IsolatedGrading.NOTHING_GRADED))) {
            // The grade step said why (one line); the last table would mislead, and an exception here would add
            // Maven's stack trace under that line. Status 1: nothing was graded.
            System.exit(1);
        }
        if (!Files.isRegularFile(file)) {
            System.out.println("No grade was written to " + file + ": the grade did not run (see the errors above).");
            return;
        }
        Results results = Results.read(file);
        String label = "graded: " + (results.extraData() == null ? "?"
                : results.extraData().getOrDefault("target", "?"));
        Path md = file.resolveSibling(MARKDOWN);
        Files.writeString(md, markdown(results, label));
        System.out.print(console(results, label));
        System.out.println("Reports: " + md.toAbsolutePath().normalize() + " (and results.json beside it)");
        Part next = next(results);
        Part example = next != null ? next : Course.all().get(0);
        System.out.println("Grade one part: mvn test -Pgrade -Dtest='" + example.selectionName() + "'   (part "
                + example.number() + "); on every save: mvn -q -pl grader exec:java@watch");
    }

    /**
     * The first part, in course order, that does not pass (failed, still to do, or not graded yet), or null when
     * every part passes: what a student does next.
     */
    static Part next(Results results) {
        for (Results.TestResult t : results.tests()) {
            if (!t.passed()) {
                for (Part p : Course.all()) {
                    if (p.number().equals(t.number())) {
                        return p;
                    }
                }
            }
        }
        return null;
    }

    /**
     * One line of progress, e.g. {@code Progress: 38/112 points, 17 of 57 parts passing.}, saying how many parts
     * have no grade yet and whether some results are from an earlier run.
     */
    static String progress(Results results) {
        long passing = results.tests().stream().filter(Results.TestResult::passed).count();
        long notRun = results.tests().stream().filter(Results.TestResult::notRun).count();
        long earlier = results.tests().stream().filter(Results.TestResult::fromEarlierRun).count();
        StringBuilder sb = new StringBuilder("Progress: ").append(points(results.score())).append('/')
                .append(points(results.maxScore())).append(" points, ").append(passing).append(" of ")
                .append(results.tests().size()).append(" parts passing.");
        if (earlier > 0) {
            sb.append(' ').append(earlier).append(" parts keep their result from an earlier run.");
        }
        if (notRun > 0) {
            sb.append(' ').append(notRun).append(" parts have no grade yet (mvn test -Pgrade grades them all).");
        }
        return sb.toString();
    }

    /** What to do next: the first part not yet passing, its file and method; or that all pass. */
    static String nextStep(Results results) {
        Part p = next(results);
        if (p == null) {
            return "Every part passes.";
        }
        Results.TestResult t = results.tests().stream().filter(r -> r.number().equals(p.number())).findFirst()
                .orElseThrow();
        String state = t.notRun() ? "no grade yet" : status(t);
        return "Next: " + p.number() + " " + p.title() + " (" + state + ") — " + p.startAt();
    }

    /** The parts whose full report is shown: failed, but neither still to do nor left unrun. */
    static List<Results.TestResult> failing(Results results) {
        return results.tests().stream().filter(t -> status(t).equals("FAIL")).toList();
    }

    /** PASS, FAIL, TO DO (the stub still throws) or "-" (not run). */
    static String status(Results.TestResult t) {
        String reason = t.reason();
        return t.passed() ? "PASS" : reason.startsWith("not implemented") ? "TO DO"
                : reason.equals("not run") ? "-" : "FAIL";
    }

    /**
     * Every failing part's report, then the table, the progress line and the next step: what
     * {@code mvn test -Pgrade} prints. When only some parts ran (a single-part run, a watch regrade), the reports
     * and the table's rows are those of the parts that ran, without a total: the progress line counts every part.
     */
    public static String console(Results results, String label) {
        StringBuilder sb = new StringBuilder();
        java.util.Set<String> shownOnce = new java.util.HashSet<>();
        List<Results.TestResult> ran = ran(results);
        boolean partial = ran.size() < results.tests().size();
        for (Results.TestResult t : failing(results)) {
            if (!ran.contains(t)) {
                continue;
            }
            String head = "── " + t.name() + ": " + points(t.score()) + "/" + points(t.maxScore()) + " ";
            sb.append(head).append("─".repeat(Math.max(3, 78 - head.length()))).append('\n');
            // A file that was not graded (it did not compile, crashed javac, is a link …) fails all its parts with the
            // same messages, and a refused submission every part: show them once.
            boolean notGraded = t.reason().endsWith("did not compile")
                    || t.output().lines().findFirst().orElse("").endsWith(") was not graded.");
            if (notGraded && !shownOnce.add(t.reason())) {
                sb.append(t.reason()).append(t.reason().endsWith("did not compile")
                        ? ": the compiler's messages are above.\n\n" : ": see above.\n\n");
                continue;
            }
            sb.append(t.output().strip()).append("\n\n");
        }
        sb.append(format(results, label, ran, !partial));
        // The summary's further lines: files refused or graded as their stub.
        results.output().lines().skip(1).filter(l -> !l.isBlank()).forEach(l -> sb.append(l).append('\n'));
        sb.append(progress(results)).append('\n').append(nextStep(results)).append('\n');
        return sb.toString();
    }

    /** The parts graded by the run itself: neither left unrun nor kept from an earlier run. */
    static List<Results.TestResult> ran(Results results) {
        return results.tests().stream().filter(t -> !t.notRun() && !t.fromEarlierRun()).toList();
    }

    /** The table of a grade, with a line on the modelled-time parts when there are any. */
    public static String format(Results results, String label) {
        return format(results, label, results.tests(), true);
    }

    /** The table of the given rows of a grade; the total only when {@code total}. */
    private static String format(Results results, String label, List<Results.TestResult> rows, boolean total) {
        int width = "title".length();
        for (Results.TestResult t : results.tests()) {
            width = Math.max(width, title(t).length());
        }
        String row = "%-6s %-" + width + "s %7s  %-6s %s%n";
        String rule = "-".repeat(Math.max(78, width + 30));
        StringBuilder sb = new StringBuilder();
        sb.append(rule).append('\n').append("Shardlings grade — ").append(label).append('\n').append(rule).append('\n')
                .append(String.format(Locale.ROOT, row, "part", "title", "points", "status", "reason"));
        boolean performance = false;
        for (Results.TestResult t : rows) {
            performance |= t.number().endsWith("p");
            sb.append(String.format(Locale.ROOT, row, t.number(), title(t),
                    points(t.score()) + "/" + points(t.maxScore()), status(t), t.reason()).stripTrailing())
                    .append('\n');
        }
        sb.append(rule).append('\n');
        if (total) {
            sb.append(String.format(Locale.ROOT, "%-6s %-" + width + "s %7s%n", "total", "",
                    points(results.score()) + "/" + points(results.maxScore()))).append(rule).append('\n');
        }
        if (performance) {
            sb.append(performanceLine()).append('\n');
        }
        return sb.toString();
    }

    /** What the parts ending in "p" measure, in one line. */
    static String performanceLine() {
        return String.format(Locale.ROOT, "Parts ending in p (3.0p …) time the part's program on a modelled"
                + " accelerator (TPU v5e, v4) and pass within %.2f× the reference solution's time; see"
                + " docs/profiles.md.", ModelledTime.LIMIT);
    }

    /** The grade as Markdown: the table, then each failing part's report in a code block. */
    /**
     * The barriers at the level of the operating system that did not hold in this grade, named, e.g. "no_network"; empty
     * when every one held or results.json names none (a grade made before they existed).
     */
    static List<String> missingOsBarriers(Results results) {
        Object b = results.extraData().get("barriers");
        if (!(b instanceof java.util.Map<?, ?> m)) {
            return List.of();
        }
        return OS_BARRIERS.stream().filter(k -> Boolean.FALSE.equals(m.get(k))).toList();
    }

    /** The OS-level barriers an instructor is told about when they are missing, most important first. */
    private static final List<String> OS_BARRIERS = List.of("no_network", "nothing_left_behind",
            "proc_self_mem_not_writable", "unprivileged_sandbox_user");

    /**
     * For the instructor's console under a grade of untrusted code: which OS-level barriers this machine did not give
     * the sandbox ("" when all held). The grade is still right; what course code could reach is not as narrow.
     */
    public static String barrierWarning(Results results) {
        List<String> missing = missingOsBarriers(results);
        if (missing.isEmpty()) {
            return "";
        }
        Object why = results.extraData().get("barriers_missing");
        return "Warning: on this machine student code ran without " + String.join(", ", missing)
                + (why instanceof String w && !w.isBlank() ? " (" + w + ")" : "")
                + ". The grades stand; what the code could reach is wider. Which platform gives which barrier, and"
                + " how to get them: docs/grading-integrity.md, section \"OS-level barriers\".\n";
    }

    public static String markdown(Results results, String label) {
        StringBuilder sb = new StringBuilder("# Shardlings grade\n\n").append(label).append(": **")
                .append(points(results.score())).append('/').append(points(results.maxScore())).append("**\n\n")
                .append("| part | title | points | status | reason |\n| --- | --- | ---: | --- | --- |\n");
        for (Results.TestResult t : results.tests()) {
            sb.append("| ").append(t.number()).append(" | ").append(cell(title(t))).append(" | ")
                    .append(points(t.score())).append('/').append(points(t.maxScore())).append(" | ")
                    .append(status(t)).append(" | ").append(cell(t.reason())).append(" |\n");
        }
        if (results.tests().stream().anyMatch(t -> t.number().endsWith("p"))) {
            sb.append('\n').append(performanceLine()).append('\n');
        }
        for (Results.TestResult t : failing(results)) {
            String fence = fence(t.output());
            sb.append("\n## ").append(t.name()).append("\n\n").append(fence).append("text\n")
                    .append(t.output().strip()).append('\n').append(fence).append('\n');
        }
        return sb.toString();
    }

    private static String title(Results.TestResult t) {
        return t.name().startsWith(t.number() + " ") ? t.name().substring(t.number().length() + 1) : t.name();
    }

    /** A table cell: HTML escaped (student text may hold tags), and a pipe or line break would end the cell. */
    private static String cell(String s) {
        return StringEscapeUtils.escapeHtml4(s).replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ");
    }

    /** A code fence longer than any run of backticks in the text, so student text cannot close it. */
    private static String fence(String text) {
        int longest = 0;
        int run = 0;
        for (int i = 0; i < text.length(); i++) {
            run = text.charAt(i) == '`' ? run + 1 : 0;
            longest = Math.max(longest, run);
        }
        return "`".repeat(Math.max(3, longest + 1));
    }

    private static String points(double p) {
        return p == Math.rint(p) ? Long.toString((long) p) : Double.toString(p);
    }
}
