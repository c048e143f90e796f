package dev.shardlings.cost;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

import javax.xml.parsers.DocumentBuilderFactory;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The Perfetto JSON and the SVG picture of a timeline. */
class TimelineOutputTest {

    private static final Timeline T = new Timeline("tpu-v5e", "bfloat16",
            List.of(new Timeline.Device(0, "device 0 (Y=0)"), new Timeline.Device(1, "device 1 (Y=1)")),
            List.of(new Timeline.Span(0, Timeline.COMPUTE, "dot [2, 2]·[2, 2] + add", "matmul", 0, 2e-6, 16, 48),
                    new Timeline.Span(0, "Y+", "ppermute → device 1", "collective", 0, 1.5e-6, 0, 16),
                    new Timeline.Span(1, Timeline.COMPUTE, "a <b> & \"c\"", "elementwise", 1e-6, 3e-6, 0, 8)),
            3e-6, 16, 16);

    @Test
    void perfettoHasAProcessPerDeviceAThreadPerTrackAndAnEventPerSpan() throws Exception {
        JsonNode root = new ObjectMapper().readTree(PerfettoTrace.toJson(T, "test"));
        JsonNode events = root.get("traceEvents");
        long processes = 0;
        long threads = 0;
        long spans = 0;
        for (JsonNode e : events) {
            String ph = e.get("ph").asText();
            if (ph.equals("M") && e.get("name").asText().equals("process_name")) {
                processes++;
            } else if (ph.equals("M") && e.get("name").asText().equals("thread_name")) {
                threads++;
            } else if (ph.equals("X")) {
                spans++;
            }
        }
        assertEquals(2, processes);
        assertEquals(3, threads, "device 0: compute and Y+; device 1: compute");
        assertEquals(3, spans);
        JsonNode send = events.findParents("cat").stream().filter(e -> e.get("cat").asText().equals("collective"))
                .findFirst().orElseThrow();
        assertEquals(1.5, send.get("dur").asDouble(), 1e-9, "microseconds");
        assertEquals(1, send.get("tid").asInt());
        assertEquals(3.0, root.get("metadata").get("modelled_us").asDouble(), 1e-9);
    }

    @Test
    void theSvgIsWellFormedAndEscapesNames() throws Exception {
        String svg = TimelineSvg.render(T, "a < b", 600);
        DocumentBuilderFactory.newInstance().newDocumentBuilder()
                .parse(new ByteArrayInputStream(svg.getBytes(StandardCharsets.UTF_8)));
        assertTrue(svg.contains("a &lt;b&gt; &amp; &quot;c&quot;"), svg);
        assertTrue(svg.contains("3.0 µs"), "the time scale ends at the modelled time");
        assertThrows(IllegalArgumentException.class, () -> TimelineSvg.render(T, "x", 100));
    }

    @Test
    void timesAreShownInAUnitThatSuitsThem() {
        assertEquals("0.0 µs", TimelineSvg.micros(0));
        assertEquals("350 ns", TimelineSvg.micros(3.5e-7));
        assertEquals("12.5 µs", TimelineSvg.micros(1.25e-5));
        assertEquals("2.50 ms", TimelineSvg.micros(2.5e-3));
    }
}
