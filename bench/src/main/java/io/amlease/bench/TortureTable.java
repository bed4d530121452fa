package io.amlease.bench;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.stream.Collectors;

/** A torture run as a plain-text table, in the style of {@link Table}: one column per contender. */
final class TortureTable {
  private static final int SEEDS_SHOWN = 10;

  private TortureTable() {}

  static void print(TortureResults r, PrintStream out) {
    List<Contender> cs = r.contenders().keySet().stream().map(Contender::byLabel).toList();
    out.printf("amlease bench: torture run, T = %s, amlease grace %s / renew %s / stop-timeout %s, "
            + "3-server ensemble (tick %sms, syncLimit %s), seed %d, %d trials in %.0f s "
            + "(%.2f trials/min)%n%n",
        Summary.fmt(r.sessionTimeoutMs()), Summary.fmt(r.amleaseGraceMs()),
        Summary.fmt(r.amleaseRenewIntervalMs()), Summary.fmt(r.stopTimeoutMs()),
        r.ensemble().get("tick_ms"), r.ensemble().get("sync_limit"), r.seed(), r.trials(),
        r.elapsedSeconds(), r.trialsPerMinute());
    List<String[]> rows = new ArrayList<>();
    List<String> header = new ArrayList<>(List.of("figure"));
    cs.forEach(c -> header.add(c.label()));
    rows.add(header.toArray(String[]::new));
    row(rows, r, cs, "trials", t -> Integer.toString(t.trials()));
    row(rows, r, cs, "violations (trials with any)",
        t -> t.violations() + " (" + t.trialsWithViolations() + ")");
    row(rows, r, cs, "  overlap: two terms acting (G2)", t -> kind(t, TortureChecker.Kind.OVERLAP));
    row(rows, r, cs, "  orphan: acting after its term (G4)", t -> kind(t, TortureChecker.Kind.ORPHAN));
    row(rows, r, cs, "  superseded write accepted (G3)",
        t -> kind(t, TortureChecker.Kind.SUPERSEDED_WRITE));
    rows.add(cells(r, cs, "  epoch went backwards (G3)",
        c -> c == Contender.AMLEASE ? kind(r.get(c), TortureChecker.Kind.EPOCH_BACKWARDS)
            : "- (no epoch)"));
    row(rows, r, cs, "pause-excused, max (G2 void)",
        t -> t.pauseExcused() + ", max " + Summary.fmt(t.pauseExcusedMaxMs()));
    row(rows, r, cs, "  runner paused, COMMAND ran on",
        t -> Integer.toString(t.pauseExcused() - t.pauseExcusedWholeTree()));
    row(rows, r, cs, "  whole tree paused (deleteall)",
        t -> Integer.toString(t.pauseExcusedWholeTree()));
    row(rows, r, cs, "orphans ended by the bench", t -> Integer.toString(t.orphansEnded()));
    row(rows, r, cs, "terms / accepted writes", t -> t.terms() + " / " + t.writes());
    row(rows, r, cs, "violating seeds", TortureTable::seeds);
    Table.printColumns(rows, header.size(), out);
    out.println();
    out.println("faults: " + r.faults().entrySet().stream().map(e -> e.getKey() + " " + e.getValue())
        .collect(Collectors.joining(", ")));
    if (!r.errors().isEmpty()) {
      out.println("trials that could not run (" + r.errors().size() + "):");
      r.errors().forEach(e -> out.println("  " + e));
    }
    for (var group : r.clockRate().entrySet()) {
      boolean within = group.getKey().equals(TortureRun.WITHIN_RHO);
      out.println();
      out.printf("clock-rate trials, one holder's clocks %s ±ρ (ρ = %s)%s:%n",
          within ? "within" : "outside", TortureSchedule.RHO,
          within ? ", also counted above" : ", not counted above: G2 assumes ρ");
      List<String[]> g = new ArrayList<>();
      g.add(header.toArray(String[]::new));
      Function<Contender, TortureTally.Totals> of = c -> group.getValue().get(c.label());
      g.add(clockCells(cs, "trials", of, t -> Integer.toString(t.trials())));
      g.add(clockCells(cs, "violations (trials with any)", of,
          t -> t.violations() + " (" + t.trialsWithViolations() + ")"));
      for (TortureChecker.Kind k : TortureChecker.Kind.values()) {
        g.add(clockCells(cs, "  " + k.label(), of, t -> kind(t, k)));
      }
      g.add(clockCells(cs, "pause-excused", of, t -> Integer.toString(t.pauseExcused())));
      g.add(clockCells(cs, "violating seeds", of, TortureTable::seeds));
      Table.printColumns(g, header.size(), out);
    }
    TortureTally.Totals mine = r.get(Contender.AMLEASE);
    if (mine != null) {
      out.println();
      out.printf("check (issue 12): [%s] amlease: 0 violations of any kind: %d in %d trials%n",
          mine.violations() == 0 ? "ok" : "NO", mine.violations(), mine.trials());
      mine.examples().forEach(e -> out.println("  " + e));
      int runnerOnly = mine.pauseExcused() - mine.pauseExcusedWholeTree();
      out.printf("check (issue 24): [%s] amlease: 0 pause-excused findings of a runner paused with"
          + " its COMMAND running: %d (whole-tree pauses, not claimed: %d)%n",
          runnerOnly == 0 ? "ok" : "NO", runnerOnly, mine.pauseExcusedWholeTree());
      TortureTally.Totals within = r.clockRate().getOrDefault(TortureRun.WITHIN_RHO, java.util.Map.of())
          .get(Contender.AMLEASE.label());
      if (within != null) {
        out.printf("check (issue 24): [%s] amlease, clocks within ±ρ: 0 violations: %d in %d trials%n",
            within.violations() == 0 ? "ok" : "NO", within.violations(), within.trials());
      }
    }
  }

  private static String[] clockCells(List<Contender> cs, String name,
      Function<Contender, TortureTally.Totals> of, Function<TortureTally.Totals, String> cell) {
    List<String> row = new ArrayList<>(List.of(name));
    cs.forEach(c -> row.add(of.apply(c) == null ? "-" : cell.apply(of.apply(c))));
    return row.toArray(String[]::new);
  }

  private static String kind(TortureTally.Totals t, TortureChecker.Kind k) {
    return Integer.toString(t.violationsByKind().getOrDefault(k.label(), 0));
  }

  private static String seeds(TortureTally.Totals t) {
    List<Long> s = t.violatingSeeds();
    if (s.isEmpty()) {
      return "-";
    }
    String shown = s.stream().limit(SEEDS_SHOWN).map(String::valueOf).collect(Collectors.joining(", "));
    return s.size() > SEEDS_SHOWN ? shown + ", … (" + s.size() + ")" : shown;
  }

  private static void row(List<String[]> rows, TortureResults r, List<Contender> cs, String name,
      Function<TortureTally.Totals, String> cell) {
    rows.add(cells(r, cs, name, c -> r.get(c) == null ? "-" : cell.apply(r.get(c))));
  }

  private static String[] cells(TortureResults r, List<Contender> cs, String name,
      Function<Contender, String> cell) {
    List<String> row = new ArrayList<>(List.of(name));
    cs.forEach(c -> row.add(cell.apply(c)));
    return row.toArray(String[]::new);
  }

}
