package dev.shardlings.cost;

import org.apache.commons.text.StringEscapeUtils;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A {@link Timeline} drawn as an SVG picture: one row per {@link Timeline.Lane lane} of every device (compute, then
 * each link), time running left to right over a scale whose ticks sit at round values (1, 2 or 5 × 10ⁿ) in one
 * unit; matmuls blue, other local work green, communication orange, with a legend under the title. Every box is at
 * least a pixel wide, drawn over the grid lines, and has a tooltip with its name and times. Every label lies inside
 * the picture, judged by a conservative estimate of its width ({@link #textWidth}). Used by the profile report, the
 * grader's performance parts and the docs.
 */
public final class TimelineSvg {

    private static final int FONT = 11;
    private static final int TITLE_FONT = 13;
    private static final int ROW = 14;
    private static final int GAP = 6;
    private static final int MARGIN = 4;
    private static final int LEGEND_Y = 34;
    private static final int TOP = 48;
    /** The narrowest plot that still shows a timeline. */
    private static final int MIN_PLOT = 100;

    /** Box colours by span category, in legend order. */
    private static final List<String[]> LEGEND = List.of(
            new String[]{"matmul", "#4e79a7", "matmul"},
            new String[]{"elementwise", "#59a14f", "other local work"},
            new String[]{"collective", "#f28e2b", "communication"});

    private TimelineSvg() {
    }

    /**
     * The picture, {@code width} pixels wide (its height follows from the number of lanes). The label column is
     * as wide as the longest lane label needs; a label that would leave less than {@value #MIN_PLOT} pixels of
     * plot is shortened with "…".
     *
     * @throws IllegalArgumentException if width is less than 300
     */
    public static String render(Timeline t, String title, int width) {
        if (width < 300) {
            throw new IllegalArgumentException("an SVG timeline needs a width of at least 300 pixels, got " + width);
        }
        double total = t.seconds() > 0 ? t.seconds() : 1e-6;
        Axis axis = Axis.of(total);
        double right = Math.ceil(textWidth(axis.label(axis.ticks() - 1), FONT, false) / 2) + MARGIN + 2;
        double widest = 0;
        for (Timeline.Device d : t.devices()) {
            for (Timeline.Lane lane : t.lanes(d.id())) {
                String label = lane.track().equals(Timeline.COMPUTE) && lane.index() == 0
                        ? d.label() + "  " + lane.name() : lane.name();
                widest = Math.max(widest, textWidth(label, FONT, false));
            }
        }
        int labelRoom = (int) Math.min(Math.ceil(widest), width - right - MIN_PLOT - 2 * MARGIN - 6);
        int plotLeft = MARGIN + labelRoom + 6;
        double plot = width - plotLeft - right;
        int lanes = 0;
        for (Timeline.Device d : t.devices()) {
            lanes += t.lanes(d.id()).size();
        }
        int bottom = TOP + lanes * ROW + t.devices().size() * GAP;
        int height = bottom + 22;
        StringBuilder sb = new StringBuilder();
        sb.append(String.format(Locale.ROOT, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\""
                + " viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"%d\">%n", width, height, width, height,
                FONT));
        sb.append(String.format(Locale.ROOT, "<rect width=\"%d\" height=\"%d\" fill=\"white\"/>%n", width, height));
        String heading = fit(title + " — " + t.hardware() + ", " + t.dtype() + ": " + duration(t.seconds()),
                width - 2 * MARGIN, TITLE_FONT, true);
        sb.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"16\" font-size=\"%d\" font-weight=\"bold\">%s</text>%n",
                MARGIN, TITLE_FONT, esc(heading)));
        double x = MARGIN;
        for (String[] item : LEGEND) {
            sb.append(String.format(Locale.ROOT, "<rect x=\"%.1f\" y=\"%d\" width=\"10\" height=\"10\" fill=\"%s\"/>%n",
                    x, LEGEND_Y - 9, item[1]));
            sb.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%d\">%s</text>%n", x + 14, LEGEND_Y,
                    esc(item[2])));
            x += 14 + textWidth(item[2], FONT, false) + 16;
        }
        // The grid first, so that the boxes lie over it.
        for (int i = 0; i < axis.ticks(); i++) {
            double tx = plotLeft + plot * axis.value(i) / total;
            sb.append(String.format(Locale.ROOT, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#bbb\"/>%n",
                    tx, TOP - 4, tx, bottom));
            sb.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>%n", tx,
                    bottom + 14, esc(axis.label(i))));
        }
        int y = TOP;
        StringBuilder boxes = new StringBuilder();
        for (Timeline.Device d : t.devices()) {
            for (Timeline.Lane lane : t.lanes(d.id())) {
                String label = lane.track().equals(Timeline.COMPUTE) && lane.index() == 0
                        ? d.label() + "  " + lane.name() : lane.name();
                sb.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%s</text>%n",
                        plotLeft - 6, y + ROW - 3, esc(fit(label, labelRoom, FONT, false))));
                sb.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#eee\"/>%n",
                        plotLeft, y + ROW, plotLeft + plot, y + ROW));
                for (Timeline.Span s : lane.spans()) {
                    double x0 = plotLeft + plot * s.start() / total;
                    double w = Math.max(1, plot * s.seconds() / total);
                    // A white edge separates neighbours; on a box of a few pixels it would hide the colour.
                    String edge = w >= 3 ? " stroke=\"white\" stroke-width=\"0.5\"" : "";
                    boxes.append(String.format(Locale.ROOT, "<rect x=\"%.2f\" y=\"%d\" width=\"%.2f\" height=\"%d\""
                                    + " fill=\"%s\"%s><title>%s</title></rect>%n",
                            x0, y + 1, w, ROW - 2, colour(s.category()), edge,
                            esc(s.name() + ": " + duration(s.start()) + " → " + duration(s.end()))));
                }
                y += ROW;
            }
            y += GAP;
        }
        return sb.append(boxes).append("</svg>\n").toString();
    }

    /**
     * The time scale: ticks at multiples of a round step (1, 2 or 5 × 10ⁿ seconds) from 0 to at most the total,
     * four to nine of them, all labelled in the unit of the largest.
     */
    record Axis(double step, int ticks, double unit, String unitName, int decimals) {

        static Axis of(double total) {
            double raw = total / 8;
            double magnitude = Math.pow(10, Math.floor(Math.log10(raw)));
            double step = 10 * magnitude;
            for (double m : new double[]{1, 2, 5}) {
                if (m * magnitude >= raw * (1 - 1e-9)) {
                    step = m * magnitude;
                    break;
                }
            }
            int ticks = (int) Math.floor(total / step * (1 + 1e-9)) + 1;
            double last = step * (ticks - 1);
            double unit;
            String name;
            if (last < 1e-6) {
                unit = 1e-9;
                name = "ns";
            } else if (last < 1e-3) {
                unit = 1e-6;
                name = "µs";
            } else if (last < 1) {
                unit = 1e-3;
                name = "ms";
            } else {
                unit = 1;
                name = "s";
            }
            int decimals = Math.max(0, (int) Math.ceil(-Math.log10(step / unit) - 1e-9));
            return new Axis(step, ticks, unit, name, decimals);
        }

        double value(int i) {
            return step * i;
        }

        String label(int i) {
            return String.format(Locale.ROOT, "%." + decimals + "f %s", value(i) / unit, unitName);
        }
    }

    private static String colour(String category) {
        return LEGEND.stream().filter(l -> l[0].equals(category)).findFirst().orElse(LEGEND.get(1))[1];
    }

    /**
     * A time in the unit that suits it: ns below a microsecond, µs below a millisecond, ms below a second, else s;
     * e.g. {@code "3 ns"}, {@code "296.6 µs"}, {@code "2.50 ms"}, {@code "1.25 s"}, and {@code "0 s"} for nothing.
     * Used wherever a page shows one time, so that a table and a picture of the same run print it alike.
     *
     * @param seconds a time in seconds
     */
    public static String duration(double seconds) {
        double a = Math.abs(seconds);
        if (seconds == 0) {
            return "0 s";
        }
        if (a < 1e-6) {
            return String.format(Locale.ROOT, "%.0f ns", seconds * 1e9);
        }
        if (a < 1e-3) {
            return String.format(Locale.ROOT, "%.1f µs", seconds * 1e6);
        }
        if (a < 1) {
            return String.format(Locale.ROOT, "%.2f ms", seconds * 1e3);
        }
        return String.format(Locale.ROOT, "%.2f s", seconds);
    }

    /**
     * An upper bound on the width of {@code text} in pixels in a sans-serif font: per character the advance of the
     * widest common sans-serif face (DejaVu Sans, wider than Arial and Helvetica), rounded up by character class,
     * and 15 % more for bold.
     */
    static double textWidth(String text, double fontSize, boolean bold) {
        double em = 0;
        for (int i = 0; i < text.length(); ) {
            int c = text.codePointAt(i);
            i += Character.charCount(c);
            em += advance(c);
        }
        return em * fontSize * (bold ? 1.15 : 1);
    }

    private static double advance(int c) {
        if (" .,:;'|!ilIjft()[]-/·".indexOf(c) >= 0) {
            return 0.45;
        }
        if (c == 'm' || c == 'w' || c == 'M' || c == 'W') {
            return 1.0;
        }
        if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == 'µ') {
            return 0.65;
        }
        if (c >= 'A' && c <= 'Z') {
            return 0.8;
        }
        if ("=+<>→×~#&".indexOf(c) >= 0) {
            return 0.85;
        }
        return 1.0;
    }

    /** The text, or its start and "…" where it would be wider than {@code room} pixels. */
    private static String fit(String text, double room, double fontSize, boolean bold) {
        if (textWidth(text, fontSize, bold) <= room) {
            return text;
        }
        String s = text;
        while (!s.isEmpty() && textWidth(s + "…", fontSize, bold) > room) {
            s = s.substring(0, s.length() - 1);
        }
        return s + "…";
    }

    private static String esc(String s) {
        return StringEscapeUtils.escapeXml10(s);
    }
}
