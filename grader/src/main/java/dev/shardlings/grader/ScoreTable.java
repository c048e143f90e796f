package dev.shardlings.grader;

/** The console table printed at the end of a grading run: part, points, status, one-line reason. */
public final class ScoreTable {

    private ScoreTable() {
    }

    /**
     * Prints the table of a results.json: {@code ScoreTable <results.json>}. Run by the grade profile after the
     * tests, so the table is the last thing a student sees.
     *
     * @param args the path of results.json
     */
    public static void main(String[] args) throws java.io.IOException {
        if (args.length != 1) {
            System.err.println("usage: ScoreTable <results.json>");
            System.exit(2);
        }
        java.nio.file.Path file = java.nio.file.Path.of(args[0]);
        if (!java.nio.file.Files.isRegularFile(file)) {
            System.out.println("No grade was written to " + file + ": the tests did not run (see the errors above).");
            return;
        }
        Results results = Results.read(file);
        Object target = results.extraData() == null ? "?" : results.extraData().getOrDefault("target", "?");
        System.out.print(format(results, "graded: " + target));
        System.out.println("Full report of every part: " + file.toAbsolutePath().normalize());
        System.out.println("Grade one part: mvn test -Pgrade -Dtest='Part12a*'   (part 1.2a)");
    }

    /** Formats the table of a grade. */
    public static String format(Results results, String target) {
        StringBuilder sb = new StringBuilder();
        String rule = "-".repeat(78);
        sb.append(rule).append('\n')
                .append(String.format("Shardlings grade — %s%n", target))
                .append(rule).append('\n')
                .append(String.format("%-6s %-36s %7s  %-6s %s%n", "part", "title", "points", "status", "reason"));
        for (int i = 0; i < results.tests().size(); i++) {
            Results.TestResult t = results.tests().get(i);
            String reason = t.reason();
            String status = t.passed() ? "PASS" : reason.startsWith("not implemented") ? "TO DO"
                    : reason.equals("not run") ? "-" : "FAIL";
            String name = t.name().startsWith(t.number() + " ") ? t.name().substring(t.number().length() + 1) : t.name();
            String title = name.length() > 36 ? name.substring(0, 35) + "…" : name;
            sb.append(String.format("%-6s %-36s %7s  %-6s %s%n", t.number(), title,
                    points(t.score()) + "/" + points(t.maxScore()), status, reason));
        }
        sb.append(rule).append('\n')
                .append(String.format("%-6s %-36s %7s%n", "total", "", points(results.score()) + "/"
                        + points(results.maxScore())))
                .append(rule).append('\n');
        return sb.toString();
    }

    private static String points(double p) {
        return p == Math.rint(p) ? Long.toString((long) p) : Double.toString(p);
    }
}
