package dev.shardlings.grader.host;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The cap keeps the first and the last {@code keep} bytes whatever the sizes of the writes. */
class CappedOutputTest {

    @Test
    void keepsTheHeadAndTheTailOfWritesOfEverySize() {
        Random random = new Random(7);
        for (int trial = 0; trial < 300; trial++) {
            int keep = 1 + random.nextInt(40);
            CappedOutput capped = new CappedOutput(keep);
            ByteArrayOutputStream all = new ByteArrayOutputStream();
            int writes = random.nextInt(12);
            for (int w = 0; w < writes; w++) {
                byte[] b = new byte[random.nextInt(3 * keep + 2)];
                for (int i = 0; i < b.length; i++) {
                    b[i] = (byte) ('a' + random.nextInt(26));
                }
                int n = b.length == 0 ? 0 : random.nextInt(b.length + 1);
                capped.write(b, n);
                all.write(b, 0, n);
            }
            assertEquals(expected(all.toByteArray(), keep), capped.text(), "keep " + keep + ", trial " + trial);
            assertEquals(all.size(), capped.total());
        }
    }

    @Test
    void aFloodKeepsOnlyItsEnds() {
        CappedOutput capped = new CappedOutput(8);
        byte[] line = "0123456789\n".getBytes(StandardCharsets.UTF_8);
        for (int i = 0; i < 100_000; i++) {
            capped.write(line, line.length);
        }
        String text = capped.text();
        assertTrue(text.startsWith("01234567\n[… 1099984 bytes of output dropped …]\n"), text);
        assertTrue(text.endsWith("3456789\n"), text);
        assertEquals(1_100_000, capped.total());
    }

    /** What the cap should keep, from the whole output. */
    private static String expected(byte[] all, int keep) {
        if (all.length <= keep) {
            return new String(all, StandardCharsets.UTF_8);
        }
        int after = all.length - keep;
        int n = Math.min(after, keep);
        int dropped = after - n;
        return new String(all, 0, keep, StandardCharsets.UTF_8)
                + (dropped > 0 ? "\n[… " + dropped + " bytes of output dropped …]\n" : "")
                + new String(all, all.length - n, n, StandardCharsets.UTF_8);
    }
}
