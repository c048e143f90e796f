package dev.shardlings.cost;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * A {@link Timeline} in the Chrome trace event format, which Perfetto (ui.perfetto.dev) opens: one named process
 * per device (pid = device + 1: Perfetto reserves pid 0 for the kernel's idle task), one named thread per
 * {@link Timeline.Lane lane} with a tid unique in the whole trace ((device + 1) · 1000 + lane, as Perfetto's docs
 * ask of the JSON format) (compute first, then each link; a link whose
 * messages overlap in flight gets a second lane, because the slices of one thread must nest), one complete event
 * ("ph": "X") per span with its FLOPs and bytes as arguments. Times are in microseconds, as the format wants, at
 * whole nanoseconds: start and end are rounded to the nanosecond first, so that spans that touch in the model touch
 * in the trace.
 */
public final class PerfettoTrace {

    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private PerfettoTrace() {
    }

    /**
     * The trace as JSON text.
     *
     * @param title shown as the trace's name in the metadata
     */
    public static String toJson(Timeline t, String title) {
        ObjectNode root = JSON.createObjectNode();
        root.put("displayTimeUnit", "ns");
        ObjectNode meta = root.putObject("metadata");
        meta.put("title", title);
        meta.put("hardware", t.hardware());
        meta.put("dtype", t.dtype());
        meta.put("modelled_us", t.micros());
        ArrayNode events = root.putArray("traceEvents");
        int sort = 0;
        for (Timeline.Device d : t.devices()) {
            int pid = pid(d.id());
            events.addObject().put("ph", "M").put("name", "process_name").put("pid", pid)
                    .putObject("args").put("name", d.label());
            events.addObject().put("ph", "M").put("name", "process_sort_index").put("pid", pid)
                    .putObject("args").put("sort_index", sort++);
            List<Timeline.Lane> lanes = t.lanes(d.id());
            for (int lane = 0; lane < lanes.size(); lane++) {
                Timeline.Lane l = lanes.get(lane);
                int tid = tid(d.id(), lane);
                events.addObject().put("ph", "M").put("name", "thread_name").put("pid", pid).put("tid", tid)
                        .putObject("args").put("name", l.name());
                // Without a sort index Perfetto orders threads by name; this keeps compute first, lanes together.
                events.addObject().put("ph", "M").put("name", "thread_sort_index").put("pid", pid)
                        .put("tid", tid).putObject("args").put("sort_index", lane);
                for (Timeline.Span s : l.spans()) {
                    long start = Timeline.nanos(s.start());
                    long end = Timeline.nanos(s.end());
                    ObjectNode e = events.addObject();
                    e.put("ph", "X").put("name", s.name()).put("cat", s.category()).put("pid", pid)
                            .put("tid", tid).put("ts", micros(start)).put("dur", micros(end - start));
                    ObjectNode args = e.putObject("args");
                    args.put("flops", s.flops());
                    args.put("bytes", s.bytes());
                }
            }
        }
        try {
            return JSON.writeValueAsString(root);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The process id of a device's track group: device + 1, never 0. */
    public static int pid(int device) {
        return device + 1;
    }

    /** The thread id of a device's lane, unique in the trace: (device + 1) · 1000 + lane. */
    public static int tid(int device, int lane) {
        return pid(device) * 1000 + lane;
    }

    /**
     * Whole nanoseconds as microseconds with exactly three decimals: a reader that rounds to the nanosecond, as
     * Perfetto does, gets these very edges.
     */
    private static BigDecimal micros(long nanos) {
        return BigDecimal.valueOf(nanos, 3);
    }

    /**
     * Writes the trace to {@code file}, creating its directory.
     *
     * @throws UncheckedIOException if the file cannot be written
     */
    public static void write(Timeline t, String title, Path file) {
        try {
            if (file.getParent() != null) {
                Files.createDirectories(file.getParent());
            }
            Files.writeString(file, toJson(t, title));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file, e);
        }
    }
}
