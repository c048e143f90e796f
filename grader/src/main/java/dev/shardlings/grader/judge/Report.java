package dev.shardlings.grader.judge;

import dev.shardlings.grader.parts.Part;

import java.util.Objects;

/**
 * The text of one failing part, built in one order so that every report reads the same way:
 *
 * <pre>
 * Part 1.2a (roll within shards with shardMap) computed wrong values.      ← {@link #of}
 * Case 3 of 40: mesh (X=2, Y=4), A f32[8,8] laid out P('X', 'Y'), shift 1  ← {@link #about}
 *
 * Expected vs actual …                                                       ← {@link #paragraph}
 * Expected:                                                                  ← {@link #block}
 * …
 * Hint: …                                                                    ← the part's, or {@link #hint}
 * Code: exercises/…
 * Docs: docs/…
 * </pre>
 *
 * <p>Not thread-safe; a report is built and thrown on one thread. {@link #failure} ends it.
 */
public final class Report {

    private final Part part;
    private final StringBuilder text = new StringBuilder();
    private String hint;
    private boolean withHint = true;
    private boolean withPointers = true;

    private Report(Part part, String what) {
        this.part = Objects.requireNonNull(part, "part");
        text.append("Part ").append(part.number()).append(" (").append(part.title()).append(") ").append(what)
                .append(".\n");
        this.hint = part.hint();
    }

    /** A report on {@code part} whose first line says what it did wrong ("computed wrong values"). */
    public static Report of(Part part, String what) {
        return new Report(part, what);
    }

    /** The case in words, right under the first line (mesh, shapes, parameters). */
    public Report about(String caseText) {
        text.append(caseText);
        return this;
    }

    /** A paragraph, set apart from what comes before by a blank line. */
    public Report paragraph(String paragraph) {
        if (paragraph.isEmpty()) {
            return this;
        }
        endLine();
        if (!endsWithBlankLine()) {
            text.append('\n');
        }
        text.append(paragraph);
        endLine();
        return this;
    }

    /** Lines that follow what comes before without a blank line (a list, a continued explanation). */
    public Report lines(String lines) {
        if (lines.isEmpty()) {
            return this;
        }
        endLine();
        text.append(lines);
        endLine();
        return this;
    }

    /** A titled block ("Expected:" and the array), or nothing when {@code body} is null or empty. */
    public Report block(String title, String body) {
        if (body == null || body.isEmpty()) {
            return this;
        }
        endLine();
        text.append(title).append(":\n").append(body);
        endLine();
        return this;
    }

    /** Replaces the part's general hint with one about this mistake. */
    public Report hint(String specific) {
        this.hint = Objects.requireNonNull(specific, "specific");
        this.withHint = true;
        return this;
    }

    /** No hint: the report itself says what to do (a time-out, a stub not started). */
    public Report noHint() {
        this.withHint = false;
        return this;
    }

    /** No "Code:" and "Docs:" lines: the report quotes another that has them, or is for the instructor. */
    public Report noPointers() {
        this.withPointers = false;
        return this;
    }

    /** The whole text: what was added, the hint, and where the stub and the docs are. */
    public String text() {
        StringBuilder all = new StringBuilder(text);
        if (all.length() > 0 && all.charAt(all.length() - 1) != '\n') {
            all.append('\n');
        }
        if (withHint && hint != null && !hint.isEmpty()) {
            // Set apart, so the hint is the last thing read before the pointers.
            if (all.length() > 1 && all.charAt(all.length() - 2) != '\n') {
                all.append('\n');
            }
            all.append("Hint: ").append(hint).append('\n');
        }
        if (withPointers) {
            all.append("Code: ").append(part.startAt()).append("\nDocs: ").append(part.docs()).append('\n');
        }
        return all.toString();
    }

    /** The failure to throw: {@code reason} is the score table's line, the report its full text. */
    public GradingFailure failure(GradingFailure.Kind kind, String reason) {
        return new GradingFailure(kind, reason, text(), null);
    }

    /** {@link #failure(GradingFailure.Kind, String)} keeping the exception that caused it. */
    public GradingFailure failure(GradingFailure.Kind kind, String reason, Throwable cause) {
        return new GradingFailure(kind, reason, text(), cause);
    }

    private void endLine() {
        if (text.length() > 0 && text.charAt(text.length() - 1) != '\n') {
            text.append('\n');
        }
    }

    private boolean endsWithBlankLine() {
        int n = text.length();
        return n >= 2 && text.charAt(n - 1) == '\n' && text.charAt(n - 2) == '\n';
    }
}
