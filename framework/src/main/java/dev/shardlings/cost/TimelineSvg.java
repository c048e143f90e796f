package dev.shardlings.cost;

import org.apache.commons.text.StringEscapeUtils;

import java.util.List;
import java.util.Locale;

/**
 * A {@link Timeline} drawn as an SVG picture: one row per track of every device (compute, then each link), time
 * running left to right with a scale in microseconds; matmuls blue, other local work green, communication
 * orange. Every box has a tooltip with its name and times. Used by the profile report and the docs.
 */
public final class TimelineSvg {

    private static final int LABEL = 190;
    private static final int ROW = 14;
    private static final int GAP = 6;
    private static final int TOP = 30;

    private TimelineSvg() {
    }

    /**
     * The picture, {@code width} pixels wide.
     *
     * @throws IllegalArgumentException if width is less than 300
     */
    public static String render(Timeline t, String title, int width) {
        if (width < 300) {
            throw new IllegalArgumentException("an SVG timeline needs a width of at least 300 pixels, got " + width);
        }
        int plot = width - LABEL - 20;
        double total = t.seconds() > 0 ? t.seconds() : 1e-6;
        int rows = 0;
        for (Timeline.Device d : t.devices()) {
            rows += t.tracks(d.id()).size();
        }
        int height = TOP + rows * ROW + t.devices().size() * GAP + 30;
        StringBuilder sb = new StringBuilder();
        sb.append(String.format(Locale.ROOT, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\""
                + " viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"11\">%n", width, height, width, height));
        sb.append(String.format(Locale.ROOT, "<rect width=\"%d\" height=\"%d\" fill=\"white\"/>%n", width, height));
        sb.append(String.format(Locale.ROOT, "<text x=\"4\" y=\"16\" font-size=\"13\" font-weight=\"bold\">%s</text>%n",
                esc(title + " — " + t.hardware() + ", " + t.dtype() + ": " + micros(t.seconds()))));
        int y = TOP;
        for (Timeline.Device d : t.devices()) {
            List<String> tracks = t.tracks(d.id());
            for (String track : tracks) {
                String label = (track.equals(Timeline.COMPUTE) ? d.label() : "") + "  " + track;
                sb.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%s</text>%n",
                        LABEL - 6, y + ROW - 3, esc(label.strip())));
                sb.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#eee\"/>%n",
                        LABEL, y + ROW, LABEL + plot, y + ROW));
                for (Timeline.Span s : t.spans()) {
                    if (s.device() != d.id() || !s.track().equals(track)) {
                        continue;
                    }
                    double x0 = LABEL + plot * s.start() / total;
                    double w = Math.max(0.5, plot * s.seconds() / total);
                    sb.append(String.format(Locale.ROOT, "<rect x=\"%.2f\" y=\"%d\" width=\"%.2f\" height=\"%d\""
                                    + " fill=\"%s\" stroke=\"white\" stroke-width=\"0.5\"><title>%s</title></rect>%n",
                            x0, y + 1, w, ROW - 2, colour(s.category()),
                            esc(s.name() + ": " + micros(s.start()) + " → " + micros(s.end()))));
                }
                y += ROW;
            }
            y += GAP;
        }
        for (int i = 0; i <= 4; i++) {
            double x = LABEL + plot * i / 4.0;
            sb.append(String.format(Locale.ROOT, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#999\"/>%n",
                    x, TOP - 4, x, y));
            sb.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>%n", x,
                    y + 14, esc(micros(total * i / 4.0))));
        }
        return sb.append("</svg>\n").toString();
    }

    private static String colour(String category) {
        switch (category) {
            case "matmul": return "#4e79a7";
            case "collective": return "#f28e2b";
            default: return "#59a14f";
        }
    }

    /** A time in the unit that suits it: ns below a microsecond, µs below a millisecond, else ms. */
    static String micros(double seconds) {
        if (seconds != 0 && Math.abs(seconds) < 1e-6) {
            return String.format(Locale.ROOT, "%.0f ns", seconds * 1e9);
        }
        if (Math.abs(seconds) < 1e-3) {
            return String.format(Locale.ROOT, "%.1f µs", seconds * 1e6);
        }
        return String.format(Locale.ROOT, "%.2f ms", seconds * 1e3);
    }

    private static String esc(String s) {
        return StringEscapeUtils.escapeXml10(s);
    }
}
