package io.amlease.bench;

import io.amlease.lease.LeaseTiming;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.apache.commons.io.FileUtils;

/**
 * {@code bench --torture DURATION}: seeded torture trials (trial i uses seed {@code seed + i}), one
 * after another or {@code --parallel N} at once, each on its own ensemble, until DURATION has
 * passed or {@code --trials} have run. Each trial's line on
 * the progress stream names its seed and what each contender violated; a trial in which amlease
 * violated anything also prints the violations and keeps its records under {@code OUT/work/}.
 */
final class TortureRun {
  private final TortureConfig cfg;
  private final PrintStream progress;
  private final String token = "amlease-torture-" + ProcessHandle.current().pid() + "-"
      + Long.toHexString(System.nanoTime());
  /** Every trial but those with a holder's clock outside ±ρ, where G2 is not claimed. */
  private final Map<Contender, TortureTally> tallies = new LinkedHashMap<>();
  /** The clock-rate trials again, apart: {@link #WITHIN_RHO} and {@link #OUTSIDE_RHO}. */
  private final Map<String, Map<Contender, TortureTally>> clockTallies = new LinkedHashMap<>();
  static final String WITHIN_RHO = "within_rho";
  static final String OUTSIDE_RHO = "outside_rho";
  private final Map<String, Integer> faults = new LinkedHashMap<>();
  private final List<String> errors = new ArrayList<>();
  private final List<Map<String, Object>> details = new ArrayList<>();

  private TortureRun(TortureConfig cfg, PrintStream progress) {
    this.cfg = cfg;
    this.progress = progress;
    cfg.contenders().forEach(c -> tallies.put(c, new TortureTally()));
    for (String group : List.of(WITHIN_RHO, OUTSIDE_RHO)) {
      Map<Contender, TortureTally> m = new LinkedHashMap<>();
      cfg.contenders().forEach(c -> m.put(c, new TortureTally()));
      clockTallies.put(group, m);
    }
    for (TortureSchedule.Kind k : TortureSchedule.Kind.values()) {
      faults.put(k.label(), 0);
    }
  }

  static TortureResults run(TortureConfig cfg, PrintStream progress) {
    return new TortureRun(cfg, progress).run();
  }

  private TortureResults run() {
    // Whatever the run is ended by (Ctrl-C included), no holder or COMMAND outlives it.
    Thread cleanup = new Thread(() -> TortureTrial.endMarked(token), "torture-cleanup");
    Runtime.getRuntime().addShutdownHook(cleanup);
    long began = System.nanoTime();
    long deadline = began + cfg.duration().toNanos();
    AtomicInteger next = new AtomicInteger();
    AtomicInteger trialsRun = new AtomicInteger();
    ExecutorService pool = Executors.newFixedThreadPool(cfg.parallel());
    try {
      // Seeds are handed out in order; with --parallel N, N trials run at once.
      for (int w = 0; w < cfg.parallel(); w++) {
        pool.execute(() -> {
          while (true) {
            int i = next.getAndIncrement();
            if (i >= cfg.maxTrials() || System.nanoTime() - deadline >= 0) {
              return;
            }
            TortureSchedule s = TortureSchedule.generate(cfg.seed() + i, cfg.sessionTimeout(),
                cfg.trialLength());
            if (trial(s, began)) {
              trialsRun.incrementAndGet();
            }
          }
        });
      }
      pool.shutdown();
      while (!pool.awaitTermination(1, TimeUnit.MINUTES)) {
        // A trial under way finishes.
      }
    } catch (InterruptedException e) {
      pool.shutdownNow();
      Thread.currentThread().interrupt();
    } finally {
      Runtime.getRuntime().removeShutdownHook(cleanup);
    }
    int trials = trialsRun.get();
    double elapsed = (System.nanoTime() - began) / 1e9;
    LeaseTiming timing = holdTiming();
    Map<String, TortureTally.Totals> totals = new LinkedHashMap<>();
    tallies.forEach((c, t) -> totals.put(c.label(), t.totals()));
    Map<String, Map<String, TortureTally.Totals>> clock = new LinkedHashMap<>();
    clockTallies.forEach((group, m) -> {
      Map<String, TortureTally.Totals> g = new LinkedHashMap<>();
      m.forEach((c, t) -> g.put(c.label(), t.totals()));
      clock.put(group, g);
    });
    Map<String, Object> ensemble = new LinkedHashMap<>();
    ensemble.put("servers", 3);
    ensemble.put("tick_ms", cfg.ensembleTiming().tickMillis());
    ensemble.put("init_limit", cfg.ensembleTiming().initLimit());
    ensemble.put("sync_limit", cfg.ensembleTiming().syncLimit());
    ensemble.put("trials_at_once", cfg.parallel());
    return new TortureResults("torture", cfg.seed(), cfg.duration().toSeconds(),
        Math.round(elapsed * 10) / 10.0, trials, Math.round(trials / (elapsed / 60) * 100) / 100.0,
        cfg.sessionTimeout().toMillis(), timing.grace().toMillis(), timing.renewInterval().toMillis(),
        cfg.stopTimeout().toMillis(), cfg.stopAllowance().toMillis(), cfg.trialLength().toMillis(),
        ensemble, Environment.describe(), totals, clock, Map.copyOf(faults), List.copyOf(errors),
        List.copyOf(details));
  }

  /** The timing {@code hold} derives for T with the run's stop-timeout. */
  private LeaseTiming holdTiming() {
    return io.amlease.lease.LeaseConfig.builder().connectString("unused:1").leasePath("/unused")
        .holderId("x").sessionTimeout(cfg.sessionTimeout()).stopTimeout(cfg.stopTimeout()).build()
        .requestedTiming();
  }

  /** Runs one trial and adds it up; false when it failed before it could be judged. */
  private boolean trial(TortureSchedule s, long began) {
    Path work = cfg.out().resolve("work").resolve("seed-" + s.seed());
    TortureTrial.Outcome o;
    try {
      // A token of the trial's own, within the run's: a trial's clean-up must not end the
      // processes of a trial running beside it.
      o = TortureTrial.run(cfg, s, work, token + "-" + s.seed() + "-");
    } catch (Exception e) {
      synchronized (this) {
        errors.add("seed " + s.seed() + ": " + e);
        progress.printf("amlease bench: [%5.0fs] seed %d failed: %s%n", since(began), s.seed(), e);
      }
      delete(work);
      return false;
    }
    record(s, o, work, began);
    return true;
  }

  private synchronized void record(TortureSchedule s, TortureTrial.Outcome o, Path work,
      long began) {
    s.allSteps().forEach(st -> faults.merge(st.kind().label(), 1, Integer::sum));
    Map<String, Object> d = new LinkedHashMap<>();
    d.put("seed", s.seed());
    d.put("holders", s.holders());
    d.put("seconds", o.seconds());
    d.put("events", o.events());
    s.clockRate().ifPresent(r -> d.put("clock_rate", Map.of("holder", r.holder(), "rate", r.rate(),
        "probe_rate", o.clock().measuredRate(), "within_rho", r.withinRho())));
    java.util.Optional<String> group = s.clockRate().map(r -> r.withinRho() ? WITHIN_RHO
        : OUTSIDE_RHO);
    Map<String, Object> found = new LinkedHashMap<>();
    o.verdicts().forEach((c, v) -> {
      if (!group.equals(java.util.Optional.of(OUTSIDE_RHO))) {
        tallies.get(c).add(s.seed(), v, o.counts().get(c), o.orphansEnded().get(c));
      }
      group.ifPresent(g -> clockTallies.get(g).get(c).add(s.seed(), v, o.counts().get(c),
          o.orphansEnded().get(c)));
      Map<String, Object> x = new LinkedHashMap<>();
      x.put("terms", o.counts().get(c).terms());
      x.put("processes", o.counts().get(c).processes());
      x.put("writes", o.counts().get(c).writes());
      Map<String, Integer> kinds = new LinkedHashMap<>();
      v.byKind().forEach((k, n) -> kinds.put(k.label(), n));
      x.put("violations", kinds);
      x.put("examples", v.violations().stream().limit(3).map(TortureChecker.Finding::description)
          .toList());
      x.put("pause_excused", v.pauseExcused().size());
      x.put("pause_excused_whole_tree", v.pauseExcused().size() - v.pauseExcusedRunnerOnly());
      x.put("orphans_ended", o.orphansEnded().get(c));
      found.put(c.label(), x);
    });
    d.put("contenders", found);
    details.add(d);
    progress.printf("amlease bench: [%5.0fs] trial %d, seed %d (%d holders, %d faults, %.0fs): %s%n",
        since(began), details.size(), s.seed(), s.holders(), s.allSteps().size(), o.seconds(),
        o.verdicts().entrySet().stream().map(e -> e.getKey().label() + " " + brief(e.getValue()))
            .collect(Collectors.joining(" | ")));
    TortureChecker.Verdict mine = o.verdicts().get(Contender.AMLEASE);
    if (mine != null && !mine.violations().isEmpty()) {
      mine.violations().forEach(f -> progress.println("amlease bench:   amlease, seed " + s.seed()
          + ": " + f.kind().label() + ": " + f.description()));
      o.events().forEach(ev -> progress.println("amlease bench:     " + ev));
      progress.println("amlease bench:   records kept in " + work + "; replay: bin/amlease bench "
          + "--torture 10m --seed " + s.seed() + " --trials 1 -T "
          + io.amlease.lease.Durations.format(cfg.sessionTimeout()));
    } else if (cfg.keepRecords()) {
      progress.println("amlease bench:   records kept in " + work);
    } else {
      delete(work);
    }
  }

  private static String brief(TortureChecker.Verdict v) {
    if (v.violations().isEmpty()) {
      return "0";
    }
    return v.violations().size() + " (" + v.byKind().entrySet().stream().filter(e -> e.getValue() > 0)
        .map(e -> e.getKey().label() + " " + e.getValue()).collect(Collectors.joining(", ")) + ")";
  }

  private static double since(long began) {
    return (System.nanoTime() - began) / 1e9;
  }

  /** Records of a judged trial: leaving some behind on a failure is harmless. */
  private static void delete(Path dir) {
    FileUtils.deleteQuietly(dir.toFile());
  }

}
