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

    synchronized void write(byte[] b, int n) {
        for (int i = 0; i < n; i++) {
            if (total < keep) {
                head.write(b[i]);
            } else {
                tail[(int) ((total - keep) % keep)] = b[i];
            }
            total++;
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
