package dev.shardlings.grader.judge;

import dev.shardlings.grader.parts.Part;

import dev.shardlings.grader.problem1.Problem1Checks;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Every report is put together in the same order, with the part's hint unless a better one is given. */
class ReportTest {

    private static final Part P = Problem1Checks.P1_2A;

    @Test
    void aReportReadsFirstLineCaseParagraphsBlocksHintPointers() {
        String text = Report.of(P, "computed wrong values").about("Case: mesh (X=2)")
                .paragraph("Two values differ.").lines("index (0,)").block("Expected", "[1 2]")
                .block("Picture", null).text();
        assertEquals("Part 1.2a (" + P.title() + ") computed wrong values.\n"
                + "Case: mesh (X=2)\n"
                + "\n"
                + "Two values differ.\n"
                + "index (0,)\n"
                + "Expected:\n[1 2]\n"
                + "\n"
                + "Hint: " + P.hint() + "\n"
                + "Code: " + P.startAt() + "\n"
                + "Docs: " + P.docs() + "\n", text);
    }

    @Test
    void aHintAboutTheMistakeReplacesThePartsHint() {
        String text = Report.of(P, "x").paragraph("y").hint("shift the other way").text();
        assertTrue(text.contains("\nHint: shift the other way\n"), text);
        assertFalse(text.contains(P.hint()), text);
    }

    @Test
    void hintAndPointersCanBeLeftOut() {
        String text = Report.of(P, "is not implemented yet").about("Start here.").noHint().noPointers().text();
        assertEquals("Part 1.2a (" + P.title() + ") is not implemented yet.\nStart here.\n", text);
    }

    @Test
    void theFailureCarriesKindReasonTextAndCause() {
        RuntimeException cause = new RuntimeException("boom");
        Report r = Report.of(P, "threw").paragraph("boom");
        GradingFailure f = r.failure(GradingFailure.Kind.EXCEPTION, "threw RuntimeException: boom", cause);
        assertEquals(GradingFailure.Kind.EXCEPTION, f.kind());
        assertEquals("threw RuntimeException: boom", f.reason());
        assertEquals(r.text(), f.getMessage());
        assertSame(cause, f.getCause());
    }

    @Test
    void emptyPiecesAddNothing() {
        assertEquals(Report.of(P, "x").text(), Report.of(P, "x").paragraph("").lines("").block("B", "").text());
    }
}
