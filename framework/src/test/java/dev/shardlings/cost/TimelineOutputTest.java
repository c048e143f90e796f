package dev.shardlings.cost;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

import javax.xml.parsers.DocumentBuilderFactory;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

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
        assertEquals(1001, send.get("tid").asInt(), "device 0's second lane: (0 + 1) · 1000 + 1");
        assertEquals(1, send.get("pid").asInt(), "device 0 is process 1: Perfetto keeps pid 0 for the idle task");
        java.util.Set<Integer> tids = new java.util.HashSet<>();
        for (JsonNode e : events) {
            if (e.get("ph").asText().equals("M") && e.get("name").asText().equals("thread_name")) {
                assertTrue(tids.add(e.get("tid").asInt()), "a tid per lane, unique in the trace: " + e);
                assertTrue(e.get("pid").asInt() > 0, e.toString());
            }
        }
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

    /**
     * The book's collective matmul on v5e, device 3, link Y- (issue 36): the next ppermute leaves while the last is
     * still in flight, [0, 26.30] and [24.30, 50.60] µs; then one that touches the first at a float's noise.
     */
    private static final Timeline IN_FLIGHT = new Timeline("tpu-v5e", "int32",
            List.of(new Timeline.Device(3, "device 3 (X=0, Y=3)")),
            List.of(new Timeline.Span(3, "Y-", "ppermute → device 2", "collective", 0, 26.30e-6, 0, 8),
                    new Timeline.Span(3, "Y-", "ppermute → device 2", "collective", 24.30e-6, 50.60e-6, 0, 8),
                    new Timeline.Span(3, "Y-", "ppermute → device 2", "collective", 26.30e-6 - 1e-16, 30e-6, 0, 8),
                    new Timeline.Span(3, Timeline.COMPUTE, "dot", "matmul", 0, 40e-6, 10, 10),
                    new Timeline.Span(3, Timeline.COMPUTE, "divide []", "elementwise", 40e-6, 40e-6, 0, 4),
                    new Timeline.Span(3, Timeline.COMPUTE, "add", "elementwise", 40e-6, 40.001e-6, 0, 4)),
            50.60e-6, 10, 24);

    @Test
    void spansThatOverlapOnATrackGetLanesOfTheirOwn() {
        List<Timeline.Lane> lanes = IN_FLIGHT.lanes(3);
        assertEquals(List.of("compute", "link Y-", "link Y- (2)"), lanes.stream().map(Timeline.Lane::name).toList());
        assertEquals(List.of("dot", "divide []", "add"), lanes.get(0).spans().stream().map(Timeline.Span::name).toList(),
                "a zero-length span where the next begins nests: no second compute lane (seed 001's step)");
        assertEquals(List.of(0.0, 26.30e-6 - 1e-16), lanes.get(1).spans().stream().map(Timeline.Span::start).toList(),
                "a span that starts when the last one ends (at whole ns) shares its lane");
        assertEquals(List.of(24.30e-6), lanes.get(2).spans().stream().map(Timeline.Span::start).toList());
        assertEquals(List.of("compute"), T.lanes(1).stream().map(Timeline.Lane::name).toList());
    }

    @Test
    void perfettoSlicesOfOneThreadNestAtWholeNanoseconds() throws Exception {
        JsonNode root = new ObjectMapper().readTree(PerfettoTrace.toJson(IN_FLIGHT, "in flight"));
        Map<Integer, String> threads = new TreeMap<>();
        Map<Integer, List<long[]>> slices = new TreeMap<>();
        for (JsonNode e : root.get("traceEvents")) {
            if (e.get("ph").asText().equals("M") && e.get("name").asText().equals("thread_name")) {
                threads.put(e.get("tid").asInt(), e.get("args").get("name").asText());
            } else if (e.get("ph").asText().equals("X")) {
                // Perfetto reads µs × 1000 rounded to the nearest ns (json_trace_tokenizer's CoerceToTs).
                long ts = Math.round(e.get("ts").asDouble() * 1000);
                slices.computeIfAbsent(e.get("tid").asInt(), k -> new ArrayList<>())
                        .add(new long[]{ts, ts + Math.round(e.get("dur").asDouble() * 1000)});
            }
        }
        assertEquals(Map.of(4000, "compute", 4001, "link Y-", 4002, "link Y- (2)"), threads, "device 3: pid 4");
        assertEquals(List.of(List.of(0L, 26_300L), List.of(26_300L, 30_000L)),
                slices.get(4001).stream().map(a -> List.of(a[0], a[1])).toList());
        assertEquals(List.of(List.of(24_300L, 50_600L)),
                slices.get(4002).stream().map(a -> List.of(a[0], a[1])).toList());
        assertTrue(PerfettoTrace.toJson(IN_FLIGHT, "x").contains("\"ts\" : 24.300"), "three decimals, whole ns");
    }

    @Test
    void theScaleTicksAtRoundValuesInOneUnit() {
        TimelineSvg.Axis book = TimelineSvg.Axis.of(296.6e-6);
        assertEquals(List.of("0 µs", "50 µs", "100 µs", "150 µs", "200 µs", "250 µs"),
                java.util.stream.IntStream.range(0, book.ticks()).mapToObj(book::label).toList());
        TimelineSvg.Axis small = TimelineSvg.Axis.of(3e-9);
        assertEquals("0.0 ns", small.label(0), "the first tick in the unit of the others");
        assertEquals("3.0 ns", small.label(small.ticks() - 1));
        TimelineSvg.Axis ms = TimelineSvg.Axis.of(3.7e-3);
        assertEquals(List.of("0.0 ms", "0.5 ms", "1.0 ms", "1.5 ms", "2.0 ms", "2.5 ms", "3.0 ms", "3.5 ms"),
                java.util.stream.IntStream.range(0, ms.ticks()).mapToObj(ms::label).toList());
    }

    @Test
    void theSvgHasALegendAndBoxesOfAtLeastAPixelOverTheGrid() {
        String svg = TimelineSvg.render(IN_FLIGHT, "in flight", 600);
        for (String entry : List.of(">matmul<", ">other local work<", ">communication<")) {
            assertTrue(svg.contains(entry), entry + " in the legend");
        }
        Matcher add = Pattern.compile("<rect x=\"[0-9.]+\" y=\"[0-9]+\" width=\"([0-9.]+)\"[^>]*><title>add:")
                .matcher(svg);
        assertTrue(add.find(), svg);
        assertEquals(1.0, Double.parseDouble(add.group(1)), 1e-9, "a 1-ns box is drawn a pixel wide");
        assertTrue(svg.lastIndexOf("<line") < svg.indexOf("<title>"), "every grid line lies under the boxes");
        assertEquals(1, svg.split("ppermute → device 2: 24.3 µs", -1).length - 1, "the second lane is drawn");
    }

    @Test
    void everyLabelLiesInsideThePicture() {
        Timeline mlp = new Timeline("tpu-v5e", "float32",
                List.of(new Timeline.Device(0, "device 0 (batch=0, model=0)")),
                List.of(new Timeline.Span(0, Timeline.COMPUTE, "dot", "matmul", 0, 296.6e-6, 1, 1)), 296.6e-6, 1, 0);
        String svg = TimelineSvg.render(mlp, "seed-001-mlp-step / 4x2-data-tensor-parallel", 400);
        int width = 400;
        Matcher m = Pattern.compile("<text x=\"([0-9.]+)\" y=\"[0-9]+\"( text-anchor=\"(middle|end)\")?>([^<]*)</text>")
                .matcher(svg);
        int seen = 0;
        while (m.find()) {
            double x = Double.parseDouble(m.group(1));
            double w = TimelineSvg.textWidth(m.group(4).replace("&amp;", "&"), 11, false);
            double left = m.group(3) == null ? x : m.group(3).equals("middle") ? x - w / 2 : x - w;
            assertTrue(left >= 0 && left + w <= width, m.group(4) + " spans [" + left + ", " + (left + w) + "]");
            seen++;
        }
        assertTrue(svg.contains(">device 0 (batch=0, model=0)  compute<"), svg);
        assertTrue(seen >= 8, "lane, legend and tick labels: " + seen);
    }

    @Test
    void timesAreShownInAUnitThatSuitsThem() {
        assertEquals("0 s", TimelineSvg.duration(0));
        assertEquals("350 ns", TimelineSvg.duration(3.5e-7));
        assertEquals("12.5 µs", TimelineSvg.duration(1.25e-5));
        assertEquals("2.50 ms", TimelineSvg.duration(2.5e-3));
        assertEquals("1.25 s", TimelineSvg.duration(1.25));
    }
}
