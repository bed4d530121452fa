package io.amlease.bench;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/** The run as a plain-text table: one column per contender, one row per figure. */
final class Table {
  private Table() {}

  static void print(Results r, PrintStream out) {
    List<Contender> cs = r.contenders().keySet().stream().map(Contender::byLabel).toList();
    out.printf("amlease bench: %s run, T = %s, amlease grace %s / renew %s, seed %d, %.0f s%n%n",
        r.mode(), Summary.fmt(r.sessionTimeoutMs()), Summary.fmt(r.amleaseGraceMs()),
        Summary.fmt(r.amleaseRenewIntervalMs()), r.seed(), r.elapsedSeconds());
    List<String[]> rows = new ArrayList<>();
    List<String> header = new ArrayList<>(List.of("figure (median [min, max])"));
    cs.forEach(c -> header.add(c.label()));
    rows.add(header.toArray(String[]::new));
    row(rows, r, cs, "blips: revoked / trials", "blips",
        s -> s.falseRevocations() + " / " + s.trials());
    row(rows, r, cs, "partition: overlap (>0 = 2 leaders)", "partitions", s -> brief(s.overlapMs()));
    row(rows, r, cs, "partition: failover", "partitions", s -> brief(s.failoverMs()));
    row(rows, r, cs, "partition: superseded writes accepted", "partitions", Table::superseded);
    row(rows, r, cs, "heal at take-over: overlap", "heals", s -> brief(s.overlapMs()));
    row(rows, r, cs, "heal at take-over: superseded writes", "heals", Table::superseded);
    row(rows, r, cs, "handover: latency", "handover", s -> brief(s.latencyMs()));
    row(rows, r, cs, "handover: overlap", "handover", s -> brief(s.overlapMs()));
    row(rows, r, cs, "crash (SIGKILL): failover", "crash", s -> brief(s.failoverMs()));
    row(rows, r, cs, "random: violations / trials", "random",
        s -> s.violations() + " / " + s.trials()
            + (s.violatingSeeds().isEmpty() ? "" : " seeds " + s.violatingSeeds()));
    row(rows, r, cs, "random: superseded writes accepted", "random", Table::superseded);
    row(rows, r, cs, "random: pause overlaps, max (G2 void)", "random",
        s -> s.pauseOverlaps() == null ? "-"
            : s.pauseOverlaps() + ", max " + Summary.fmt(s.pauseOverlapMaxMs()));
    printColumns(rows, header.size(), out);
    out.println();
    if (r.scale() != null) {
      Scale s = r.scale();
      out.printf("scale (amlease, %d leases, one server): acquire all %s; %.2f ZooKeeper requests/s "
              + "per lease; %.1f KiB heap per lease; server restart: %d revoked, %d still holding%n",
          s.leases(), Summary.fmt(s.acquireAllMs()), s.requestsPerSecondPerLease(),
          s.heapBytesPerLease() / 1024.0, s.restartRevocations(), s.holdingAfterRestart());
    }
    if (r.overhead() != null) {
      Overhead o = r.overhead();
      out.printf("overhead: fenced write %.0f/s vs plain setData %.0f/s, ratio %.3f%n",
          o.fencedPerSecond(), o.plainPerSecond(), o.ratio());
    }
    if (!r.checks().isEmpty()) {
      out.println();
      out.println("checks (issue 4, done when; [note] = asks more than DESIGN.md promises, not binding):");
      r.checks().forEach(c -> out.printf("  [%s] %s: %s%n",
          c.held() ? "ok" : c.binding() ? "NO" : "note", c.expectation(), c.found()));
    }
  }

  private static void row(List<String[]> rows, Results r, List<Contender> cs, String name,
      String scenario, Function<ScenarioResult, String> cell) {
    if (cs.stream().allMatch(c -> r.get(c, scenario) == null)) {
      return;
    }
    List<String> row = new ArrayList<>(List.of(name));
    for (Contender c : cs) {
      ScenarioResult s = r.get(c, scenario);
      row.add(s == null ? "-" : cell.apply(s));
    }
    rows.add(row.toArray(String[]::new));
  }

  /** The superseded writes summed over the trials that measured them ("of N trials"). */
  private static String superseded(ScenarioResult s) {
    List<Number> measured = s.trialDetails().stream()
        .map(d -> (Number) d.get("superseded_writes")).filter(java.util.Objects::nonNull).toList();
    return measured.stream().mapToLong(Number::longValue).sum() + " (" + measured.size() + " of "
        + s.trials() + " trials)";
  }

  private static String brief(Summary s) {
    return s == null ? "-" : s.brief();
  }

  /** Prints {@code rows} as left-aligned columns separated by {@code |}. */
  static void printColumns(List<String[]> rows, int columns, PrintStream out) {
    int[] widths = new int[columns];
    for (String[] row : rows) {
      for (int i = 0; i < row.length; i++) {
        widths[i] = Math.max(widths[i], row[i].length());
      }
    }
    for (String[] row : rows) {
      StringBuilder b = new StringBuilder();
      for (int i = 0; i < row.length; i++) {
        b.append(String.format("%-" + widths[i] + "s", row[i])).append(i + 1 < row.length ? " | " : "");
      }
      out.println(b.toString().stripTrailing());
    }
  }
}
