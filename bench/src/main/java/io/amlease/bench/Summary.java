package io.amlease.bench;

import java.util.List;

/** Minimum, median and maximum of a sample, in milliseconds; null for an empty sample. */
record Summary(double min, double median, double max) {

  static Summary of(List<Double> sample) {
    if (sample.isEmpty()) {
      return null;
    }
    List<Double> s = sample.stream().sorted().toList();
    int n = s.size();
    double median = n % 2 == 1 ? s.get(n / 2) : (s.get(n / 2 - 1) + s.get(n / 2)) / 2;
    return new Summary(s.get(0), Math.round(median * 10) / 10.0, s.get(n - 1));
  }

  String brief() {
    return fmt(median) + " [" + fmt(min) + ", " + fmt(max) + "]";
  }

  static String fmt(double ms) {
    return Math.abs(ms) >= 1000 ? String.format("%.2fs", ms / 1000) : String.format("%.0fms", ms);
  }
}
