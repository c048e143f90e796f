package dev.shardlings.grader.selftest;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Figures chapter-7.md quotes from programs that only the grader's self-tests run (a student's variants: the
 * sequence-parallel step, a batch cut into chunks, a vjp stage): the page writes {@code <!--g:NAME-->VALUE}, and
 * the self-test that runs the variant holds VALUE to the modelled time at the precision printed. The reference
 * solutions' figures ({@code <!--f:NAME-->}) are held by the profiles' test in solutions/.
 */
final class DocsFigures {

    static final Path CHAPTER_7 = Path.of("..").toAbsolutePath().normalize().resolve("docs/chapter-7.md");
    private static final Pattern QUOTED = Pattern.compile("<!--g:([A-Za-z0-9_]+)-->(\\d+(?:\\.\\d+)?)");

    /** Every name a self-test holds; {@code DocsFiguresTest} checks the page quotes no other. */
    static final Set<String> HELD = Set.of("c7_seqpar", "c7_pmean", "c7_byhand", "c7_chunk8", "c7_chunk8_ratio",
            "c7_chunk4", "c7_vjp_block", "c7_vjp_block_ratio", "c7_vjp_layers", "c7_vjp_layers_ratio");

    private DocsFigures() {
    }

    /** The names the page quotes. */
    static Set<String> quoted() {
        Set<String> out = new TreeSet<>();
        QUOTED.matcher(page()).results().forEach(m -> out.add(m.group(1)));
        return out;
    }

    /** Asserts the page prints {@code value} for the figure {@code name}, at the page's precision. */
    static void holds(String name, double value) {
        String printed = printed(name);
        int dot = printed.indexOf('.');
        int decimals = dot < 0 ? 0 : printed.length() - dot - 1;
        assertEquals(String.format(Locale.ROOT, "%." + decimals + "f", value), printed, "docs/chapter-7.md quotes "
                + name + " = " + printed + " but the model now gives " + value + ": update the page");
    }

    /** Asserts the page prints exactly {@code text} (a figure already formatted by the grader) for {@code name}. */
    static void holds(String name, String text) {
        assertEquals(text, printed(name), "docs/chapter-7.md quotes " + name + " = " + printed(name) + " but the"
                + " grader now reports " + text + ": update the page");
    }

    private static String printed(String name) {
        assertTrue(HELD.contains(name), name + " is not in DocsFigures.HELD");
        Matcher m = QUOTED.matcher(page());
        while (m.find()) {
            if (m.group(1).equals(name)) {
                return m.group(2);
            }
        }
        throw new AssertionError("docs/chapter-7.md quotes no <!--g:" + name + "-->");
    }

    private static String page() {
        try {
            return Files.readString(CHAPTER_7);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
