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
 * A {@link Timeline} in the Chrome trace event format, which Perfetto (ui.perfetto.dev) and chrome://tracing open:
 * one process per device, one thread per {@link Timeline.Lane lane} (compute first, then each link; a link whose
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
            events.addObject().put("ph", "M").put("name", "process_name").put("pid", d.id())
                    .putObject("args").put("name", d.label());
            events.addObject().put("ph", "M").put("name", "process_sort_index").put("pid", d.id())
                    .putObject("args").put("sort_index", sort++);
            List<Timeline.Lane> lanes = t.lanes(d.id());
            for (int tid = 0; tid < lanes.size(); tid++) {
                Timeline.Lane lane = lanes.get(tid);
                events.addObject().put("ph", "M").put("name", "thread_name").put("pid", d.id()).put("tid", tid)
                        .putObject("args").put("name", lane.name());
                // Without a sort index Perfetto orders threads by name; this keeps compute first, lanes together.
                events.addObject().put("ph", "M").put("name", "thread_sort_index").put("pid", d.id())
                        .put("tid", tid).putObject("args").put("sort_index", tid);
                for (Timeline.Span s : lane.spans()) {
                    long start = Timeline.nanos(s.start());
                    long end = Timeline.nanos(s.end());
                    ObjectNode e = events.addObject();
                    e.put("ph", "X").put("name", s.name()).put("cat", s.category()).put("pid", s.device())
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
