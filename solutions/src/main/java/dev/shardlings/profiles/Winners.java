package dev.shardlings.profiles;

import dev.shardlings.cost.Timeline;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Which of a problem's variants wins on one chip, which lose to a simpler one, and why — shared by index.html and
 * the tables of docs/profiles.md so that both say the same.
 *
 * <p>Differences under {@link #TIE} are ties: the model's fixed costs are modelling choices of that order, so a
 * smaller gap teaches nothing. A measured model ({@code cpu-local}, re-measured on every run) is never flagged.
 */
final class Winners {

    /** Relative difference below which two modelled times are a tie: 2 %. */
    static final double TIE = 0.02;

    private Winners() {
    }

    /** Whether a model's figures are measured on this machine (so differ from run to run). */
    static boolean measured(String model) {
        return model.equals("cpu-local");
    }

    /** The variants within {@link #TIE} of the fastest, fastest first. */
    static List<ReferenceProfiles.Result> winners(List<ReferenceProfiles.Result> compared) {
        double best = compared.stream().mapToDouble(r -> r.timeline().seconds()).min().orElseThrow();
        List<ReferenceProfiles.Result> out = new ArrayList<>();
        compared.stream().filter(r -> r.timeline().seconds() <= best * (1 + TIE))
                .sorted(java.util.Comparator.comparingDouble(r -> r.timeline().seconds())).forEach(out::add);
        return out;
    }

    /**
     * For variants in the order the course teaches them (each meant to improve on the ones before), the ones more
     * than {@link #TIE} slower than an earlier one, as {@code later, earlier} pairs; none on a measured model.
     */
    static List<ReferenceProfiles.Result[]> losses(List<ReferenceProfiles.Result> ordered) {
        List<ReferenceProfiles.Result[]> out = new ArrayList<>();
        if (ordered.isEmpty() || measured(ordered.get(0).model().name())) {
            return out;
        }
        for (int later = 1; later < ordered.size(); later++) {
            for (int earlier = 0; earlier < later; earlier++) {
                ReferenceProfiles.Result l = ordered.get(later);
                ReferenceProfiles.Result e = ordered.get(earlier);
                if (l.timeline().seconds() > e.timeline().seconds() * (1 + TIE)) {
                    out.add(new ReferenceProfiles.Result[]{l, e});
                }
            }
        }
        return out;
    }

    /**
     * Why the fastest variant beats the runner-up, from their timelines: fewer or cheaper kernels (fixed costs and
     * waves), less time waiting for the links, or more compute hidden behind them. Empty for a tie or a single
     * variant.
     */
    static String reason(List<ReferenceProfiles.Result> compared) {
        List<ReferenceProfiles.Result> sorted = new ArrayList<>(compared);
        sorted.sort(java.util.Comparator.comparingDouble(r -> r.timeline().seconds()));
        if (sorted.size() < 2 || sorted.get(1).timeline().seconds() <= sorted.get(0).timeline().seconds() * (1 + TIE)) {
            return "";
        }
        Shape w = Shape.of(sorted.get(0).timeline());
        Shape r = Shape.of(sorted.get(1).timeline());
        String vs = sorted.get(1).program().variant();
        if (w.compute < r.compute * 0.95 && w.waiting <= r.waiting + 0.05 * r.total) {
            return String.format(Locale.ROOT, "less compute: %d kernels busy %.1f µs on the busiest device, against"
                    + " %d kernels and %.1f µs for %s (fixed costs and waves)", w.kernels, w.compute, r.kernels,
                    r.compute, vs);
        }
        if (w.waiting < r.waiting) {
            return String.format(Locale.ROOT, "links: its busiest device waits %.1f µs for data, against %.1f µs for"
                    + " %s", w.waiting, r.waiting, vs);
        }
        return String.format(Locale.ROOT, "compute: busy %.1f µs on the busiest device, against %.1f µs for %s",
                w.compute, r.compute, vs);
    }

    /** The busiest device's compute time and kernels, and how long it sat idle (waiting for links), in µs. */
    private record Shape(double compute, int kernels, double waiting, double total) {
        static Shape of(Timeline t) {
            double busiest = -1;
            int kernels = 0;
            for (Timeline.Device d : t.devices()) {
                double c = 0;
                int k = 0;
                for (Timeline.Span s : t.spans()) {
                    if (s.device() == d.id() && s.track().equals(Timeline.COMPUTE)) {
                        c += s.seconds();
                        k++;
                    }
                }
                if (c > busiest) {
                    busiest = c;
                    kernels = k;
                }
            }
            double total = t.micros();
            double compute = Math.max(0, busiest) * 1e6;
            return new Shape(compute, kernels, total - compute, total);
        }
    }
}
