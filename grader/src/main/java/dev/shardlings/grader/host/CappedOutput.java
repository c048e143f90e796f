package dev.shardlings.grader.host;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

/**
 * Output kept with a cap: the first and the last {@code keep} bytes, and how many were dropped between.
 */
final class CappedOutput {
    private final int keep;
    private final ByteArrayOutputStream head = new ByteArrayOutputStream();
    private final byte[] tail;
    private long total;

    CappedOutput(int keep) {
        this.keep = keep;
        this.tail = new byte[keep];
    }

    /** Keeps {@code b[0, n)}: in bulk, since a flood of output is hundreds of megabytes (a byte at a time cost seconds). */
    synchronized void write(byte[] b, int n) {
        int i = 0;
        if (total < keep) {
            int h = (int) Math.min(n, keep - total);
            head.write(b, 0, h);
            i = h;
            total += h;
        }
        if (n - i > keep) { // only the last keep bytes of this write can stay in the tail
            total += n - i - keep;
            i = n - keep;
        }
        while (i < n) {
            int at = (int) ((total - keep) % keep);
            int c = Math.min(n - i, keep - at);
            System.arraycopy(b, i, tail, at, c);
            i += c;
            total += c;
        }
    }

    synchronized long total() {
        return total;
    }

    /** The kept text, with a line saying how much was dropped. */
    synchronized String text() {
        String h = head.toString(StandardCharsets.UTF_8);
        if (total <= keep) {
            return h;
        }
        long after = total - keep;
        int n = (int) Math.min(after, keep);
        byte[] t = new byte[n];
        long start = after - n;
        for (int i = 0; i < n; i++) {
            t[i] = tail[(int) ((start + i) % keep)];
        }
        long dropped = after - n;
        return h + (dropped > 0 ? "\n[… " + dropped + " bytes of output dropped …]\n" : "")
                + new String(t, StandardCharsets.UTF_8);
    }
}
