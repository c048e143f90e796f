package dev.shardlings.cost;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A {@link Timeline} in the Chrome trace event format, which Perfetto (ui.perfetto.dev) and chrome://tracing open:
 * one process per device, one thread per track (compute first, then each link), one complete event ("ph": "X")
 * per span with its FLOPs and bytes as arguments. Times are in microseconds, as the format wants.
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
        Map<Integer, List<String>> tracks = new HashMap<>();
        int sort = 0;
        for (Timeline.Device d : t.devices()) {
            events.addObject().put("ph", "M").put("name", "process_name").put("pid", d.id())
                    .putObject("args").put("name", d.label());
            events.addObject().put("ph", "M").put("name", "process_sort_index").put("pid", d.id())
                    .putObject("args").put("sort_index", sort++);
            List<String> ts = t.tracks(d.id());
            tracks.put(d.id(), ts);
            for (int i = 0; i < ts.size(); i++) {
                String name = ts.get(i).equals(Timeline.COMPUTE) ? "compute" : "link " + ts.get(i);
                events.addObject().put("ph", "M").put("name", "thread_name").put("pid", d.id()).put("tid", i)
                        .putObject("args").put("name", name);
            }
        }
        for (Timeline.Span s : t.spans()) {
            ObjectNode e = events.addObject();
            e.put("ph", "X").put("name", s.name()).put("cat", s.category()).put("pid", s.device())
                    .put("tid", tracks.get(s.device()).indexOf(s.track()))
                    .put("ts", s.start() * 1e6).put("dur", s.seconds() * 1e6);
            ObjectNode args = e.putObject("args");
            args.put("flops", s.flops());
            args.put("bytes", s.bytes());
        }
        try {
            return JSON.writeValueAsString(root);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
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
