package dev.shardlings.bench;

import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * A log-log line plot as SVG text: time per call (µs, or ms) against devices (1 … 256), one line per series, and a
 * dashed "linear" guide through the first series' point at 8 devices, so a curve steeper than the guide is visible
 * at a glance. Drawn by {@link BenchReport} from the same run's JMH results (docs/performance/scaling.svg).
 */
final class ScalingPlot {

    /** One point: devices, and the time per call in µs. */
    record Point(int devices, double micros) {
    }

    /**
     * One line of the plot.
     *
     * @param label  the legend text: letters, digits, spaces and {@code ×()=.,-} only (it is written into the SVG
     *               as is, so nothing in it may need escaping)
     * @param color  an SVG colour such as {@code #1f77b4}
     * @param dashed whether the line is dashed (a reference rather than our code)
     * @param points at least one, devices ascending
     */
    record Series(String label, String color, boolean dashed, List<Point> points) {
        private static final Pattern SAFE = Pattern.compile("[A-Za-z0-9 ×()=.,/-]*");

        Series {
            if (!SAFE.matcher(label).matches()) {
                throw new IllegalArgumentException("a plot label may hold letters, digits, spaces and ×()=.,/- only: "
                        + label);
            }
            if (!color.matches("#[0-9a-fA-F]{6}")) {
                throw new IllegalArgumentException("a colour is #rrggbb: " + color);
            }
            points = List.copyOf(points);
        }
    }

    private static final int W = 720;
    private static final int H = 440;
    private static final int LEFT = 70;
    private static final int RIGHT = 220;
    private static final int TOP = 40;
    private static final int BOTTOM = 50;

    private ScalingPlot() {
    }

    /** The SVG document; series without points are left out. */
    static String svg(String title, List<Series> series) {
        double minY = Double.POSITIVE_INFINITY;
        double maxY = 0;
        int maxDevices = 1;
        for (Series s : series) {
            for (Point p : s.points()) {
                if (p.micros() > 0 && Double.isFinite(p.micros())) {
                    minY = Math.min(minY, p.micros());
                    maxY = Math.max(maxY, p.micros());
                }
                maxDevices = Math.max(maxDevices, p.devices());
            }
        }
        if (maxY == 0) {
            minY = 1;
            maxY = 10;
        }
        double y0 = Math.floor(Math.log10(minY));
        double y1 = Math.ceil(Math.log10(maxY));
        if (y1 <= y0) {
            y1 = y0 + 1;
        }
        double x1 = Math.max(1, Math.ceil(Math.log(maxDevices) / Math.log(2)));
        double plotW = W - LEFT - RIGHT;
        double plotH = H - TOP - BOTTOM;
        double yLo = y0;
        double yHi = y1;
        java.util.function.DoubleUnaryOperator px = d -> LEFT + plotW * (Math.log(d) / Math.log(2)) / x1;
        java.util.function.DoubleUnaryOperator py = us -> TOP + plotH * (1 - (Math.log10(us) - yLo) / (yHi - yLo));

        StringBuilder sb = new StringBuilder();
        sb.append("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"").append(W).append("\" height=\"").append(H)
                .append("\" viewBox=\"0 0 ").append(W).append(' ').append(H)
                .append("\" font-family=\"sans-serif\" font-size=\"12\">\n")
                .append("<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n")
                .append("<text x=\"").append(LEFT).append("\" y=\"22\" font-size=\"14\">").append(safe(title))
                .append("</text>\n");
        // Axes, grid and ticks.
        for (int k = 0; k <= (int) x1; k++) {
            double x = px.applyAsDouble(1 << k);
            sb.append(line(x, TOP, x, TOP + plotH, "#dddddd", false))
                    .append(text(x, TOP + plotH + 16, Integer.toString(1 << k), "middle"));
        }
        for (int e = (int) y0; e <= (int) y1; e++) {
            double y = py.applyAsDouble(Math.pow(10, e));
            sb.append(line(LEFT, y, LEFT + plotW, y, "#dddddd", false))
                    .append(text(LEFT - 6, y + 4, timeLabel(Math.pow(10, e)), "end"));
        }
        sb.append(line(LEFT, TOP + plotH, LEFT + plotW, TOP + plotH, "#000000", false))
                .append(line(LEFT, TOP, LEFT, TOP + plotH, "#000000", false))
                .append(text(LEFT + plotW / 2, H - 12, "devices (log scale)", "middle"))
                .append("<text x=\"16\" y=\"").append(fmt(TOP + plotH / 2)).append("\" transform=\"rotate(-90 16 ")
                .append(fmt(TOP + plotH / 2)).append(")\" text-anchor=\"middle\">time per call (log scale)</text>\n");
        // The linear guide through the first series at 8 devices (or its first point).
        if (!series.isEmpty() && !series.get(0).points().isEmpty()) {
            Point anchor = series.get(0).points().stream().filter(p -> p.devices() == 8).findFirst()
                    .orElse(series.get(0).points().get(0));
            double a = anchor.micros() / anchor.devices();
            double lo = Math.max(1, Math.pow(10, y0) / a);
            double hi = Math.min(1 << (int) x1, Math.pow(10, y1) / a);
            if (hi > lo) {
                sb.append(line(px.applyAsDouble(lo), py.applyAsDouble(a * lo), px.applyAsDouble(hi),
                        py.applyAsDouble(a * hi), "#999999", true));
            }
        }
        int legendY = TOP + 10;
        for (Series s : series) {
            if (s.points().isEmpty()) {
                continue;
            }
            StringBuilder pts = new StringBuilder();
            for (Point p : s.points()) {
                pts.append(fmt(px.applyAsDouble(p.devices()))).append(',').append(fmt(py.applyAsDouble(p.micros())))
                        .append(' ');
            }
            sb.append("<polyline fill=\"none\" stroke=\"").append(s.color()).append("\" stroke-width=\"2\"")
                    .append(s.dashed() ? " stroke-dasharray=\"6 4\"" : "").append(" points=\"")
                    .append(pts.toString().strip()).append("\"/>\n");
            for (Point p : s.points()) {
                sb.append("<circle cx=\"").append(fmt(px.applyAsDouble(p.devices()))).append("\" cy=\"")
                        .append(fmt(py.applyAsDouble(p.micros()))).append("\" r=\"3\" fill=\"").append(s.color())
                        .append("\"/>\n");
            }
            double lx = LEFT + plotW + 14;
            sb.append(line(lx, legendY, lx + 22, legendY, s.color(), s.dashed()))
                    .append(text(lx + 28, legendY + 4, s.label(), "start"));
            legendY += 20;
        }
        double lx = LEFT + plotW + 14;
        sb.append(line(lx, legendY, lx + 22, legendY, "#999999", true))
                .append(text(lx + 28, legendY + 4, "linear in devices", "start"));
        return sb.append("</svg>\n").toString();
    }

    private static String timeLabel(double micros) {
        if (micros >= 1e6) {
            return fmt0(micros / 1e6) + " s";
        }
        if (micros >= 1e3) {
            return fmt0(micros / 1e3) + " ms";
        }
        return micros >= 1 ? fmt0(micros) + " µs" : fmt0(micros * 1e3) + " ns";
    }

    private static String safe(String s) {
        return new Series(s, "#000000", false, List.of()).label();
    }

    private static String line(double x1, double y1, double x2, double y2, String color, boolean dashed) {
        return "<line x1=\"" + fmt(x1) + "\" y1=\"" + fmt(y1) + "\" x2=\"" + fmt(x2) + "\" y2=\"" + fmt(y2)
                + "\" stroke=\"" + color + "\"" + (dashed ? " stroke-dasharray=\"6 4\"" : "") + "/>\n";
    }

    private static String text(double x, double y, String s, String anchor) {
        return "<text x=\"" + fmt(x) + "\" y=\"" + fmt(y) + "\" text-anchor=\"" + anchor + "\">" + s + "</text>\n";
    }

    private static String fmt(double v) {
        return String.format(Locale.ROOT, "%.1f", v);
    }

    private static String fmt0(double v) {
        return String.format(Locale.ROOT, "%.0f", v);
    }
}
