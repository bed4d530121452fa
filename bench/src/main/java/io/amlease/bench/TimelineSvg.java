package io.amlease.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/**
 * {@code timeline.svg}: one partition trial per contender on one time axis (0 = partition starts).
 * Two lanes per contender: the partitioned holder {@code a} and the contender {@code b}; a bar while
 * a holder acts; the partition shaded; overlapping bars mean two leaders.
 */
final class TimelineSvg {
  private static final int LEFT = 215;
  private static final int WIDTH = 900;
  private static final int LANE = 22;
  private static final int GAP = 18;
  private static final double BEFORE_S = 1.0;

  private TimelineSvg() {}

  static void write(List<Trace> traces, Path file) throws IOException {
    Files.writeString(file, render(traces), StandardCharsets.UTF_8);
  }

  static String render(List<Trace> traces) {
    double span = traces.stream().mapToDouble(t -> (t.endNanos() - t.faultNanos()) / 1e9).max()
        .orElse(1) + BEFORE_S;
    double scale = (WIDTH - LEFT - 20) / span;
    int height = 40 + traces.size() * (2 * LANE + GAP) + 40;
    StringBuilder b = new StringBuilder();
    b.append(String.format(Locale.ROOT, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
        + "height=\"%d\" font-family=\"sans-serif\" font-size=\"12\">%n", WIDTH, height));
    b.append("<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n");
    b.append("<text x=\"10\" y=\"20\" font-weight=\"bold\">One silent partition longer than 2T per "
        + "contender: who acts when (0 s = partition starts; shaded = partition)</text>\n");
    int y = 40;
    for (Trace t : traces) {
      double x0 = x(t.faultNanos(), t, scale);
      double x1 = x(t.healNanos(), t, scale);
      b.append(String.format(Locale.ROOT, "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" "
          + "fill=\"#f3d6d6\"/>%n", x0, y, x1 - x0, 2 * LANE));
      b.append(String.format(Locale.ROOT, "<text x=\"10\" y=\"%d\" font-weight=\"bold\">%s</text>%n",
          y + LANE - 6, t.contender().label()));
      lane(b, t, "a", "a (partitioned)", y, scale, "#3b6fb6");
      lane(b, t, "b", "b (contender)", y + LANE, scale, "#3a9a5b");
      y += 2 * LANE + GAP;
    }
    for (int s = 0; s <= (int) Math.floor(span - BEFORE_S); s++) {
      double x = LEFT + (s + BEFORE_S) * scale;
      b.append(String.format(Locale.ROOT, "<line x1=\"%.1f\" y1=\"35\" x2=\"%.1f\" y2=\"%d\" "
          + "stroke=\"#ddd\"/>%n<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%ds</text>%n",
          x, x, y - GAP + 4, x, y + 8, s));
    }
    b.append("</svg>\n");
    return b.toString();
  }

  private static void lane(StringBuilder b, Trace t, String holder, String label, int y,
      double scale, String colour) {
    b.append(String.format(Locale.ROOT, "<text x=\"118\" y=\"%d\" fill=\"#555\">%s</text>%n",
        y + LANE - 7, label));
    Long start = null;
    long origin = t.faultNanos() - (long) (BEFORE_S * 1e9);
    for (Timeline.Event e : t.events()) {
      if (!e.holder().equals(holder)) {
        continue;
      }
      if (e.edge() == Timeline.Edge.START && start == null) {
        start = Math.max(e.nanos(), origin);
      } else if (e.edge() == Timeline.Edge.STOP && start != null) {
        bar(b, t, start, Math.min(e.nanos(), t.endNanos()), y, scale, colour);
        start = null;
      }
    }
    if (start != null) {
      bar(b, t, start, t.endNanos(), y, scale, colour);
    }
  }

  private static void bar(StringBuilder b, Trace t, long from, long to, int y, double scale,
      String colour) {
    if (to - from <= 0) {
      return;
    }
    double x0 = x(from, t, scale);
    b.append(String.format(Locale.ROOT, "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" "
        + "fill=\"%s\" opacity=\"0.85\"/>%n", x0, y + 4, x(to, t, scale) - x0, LANE - 8, colour));
  }

  private static double x(long nanos, Trace t, double scale) {
    double s = (nanos - t.faultNanos()) / 1e9 + BEFORE_S;
    return LEFT + Math.max(0, s) * scale;
  }
}
