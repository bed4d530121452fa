package io.amlease.status;

import java.util.Locale;
import java.util.Map;

/**
 * Builds a page in Prometheus' text exposition format (version 0.0.4): each metric once, with its
 * HELP and TYPE lines, then its samples. Names follow Prometheus' conventions: base units (seconds),
 * counters end in {@code _total}.
 */
public final class PrometheusText {
  private final StringBuilder out = new StringBuilder();

  public PrometheusText gauge(String name, String help, double value) {
    header(name, "gauge", help);
    sample(name, "", value);
    return this;
  }

  public PrometheusText counter(String name, String help, double value) {
    header(name, "counter", help);
    sample(name, "", value);
    return this;
  }

  /** One counter with one label, a sample per label value. */
  public PrometheusText counter(String name, String help, String label,
      Map<String, ? extends Number> byLabel) {
    header(name, "counter", help);
    byLabel.forEach((v, n) -> sample(name, "{" + label + "=\"" + escape(v) + "\"}",
        n.doubleValue()));
    return this;
  }

  /** A summary without quantiles: {@code _sum} and {@code _count}. */
  public PrometheusText summary(String name, String help, double sum, long count) {
    header(name, "summary", help);
    sample(name + "_sum", "", sum);
    sample(name + "_count", "", count);
    return this;
  }

  private void header(String name, String type, String help) {
    out.append("# HELP ").append(name).append(' ').append(help.replace("\\", "\\\\")
        .replace("\n", "\\n")).append('\n');
    out.append("# TYPE ").append(name).append(' ').append(type).append('\n');
  }

  private void sample(String name, String labels, double value) {
    out.append(name).append(labels).append(' ');
    if (value == Math.rint(value) && !Double.isInfinite(value) && Math.abs(value) < 1e15) {
      out.append((long) value);
    } else {
      out.append(String.format(Locale.ROOT, "%.6f", value));
    }
    out.append('\n');
  }

  private static String escape(String v) {
    return v.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n");
  }

  @Override
  public String toString() {
    return out.toString();
  }
}
