package io.amlease.bench;

import io.amlease.bench.BenchConfig.Scenario;
import io.amlease.lease.LeaseTiming;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Runs the configured scenarios in order and gathers their figures. A scenario that fails is
 * recorded as an error and the run goes on: one broken scenario should not cost the others' figures.
 */
final class Benchmark {
  interface Step<T> {
    T run() throws Exception;
  }

  private final BenchConfig cfg;
  private final PrintStream progress;
  private final long began = System.nanoTime();
  private final Map<String, String> errors = new LinkedHashMap<>();

  private Benchmark(BenchConfig cfg, PrintStream progress) {
    this.cfg = cfg;
    this.progress = progress;
  }

  static Results run(BenchConfig cfg, PrintStream progress) throws Exception {
    return new Benchmark(cfg, progress).run();
  }

  private Results run() throws Exception {
    Map<String, Map<String, ScenarioResult>> byContender = new LinkedHashMap<>();
    cfg.contenders().forEach(c -> byContender.put(c.label(), new LinkedHashMap<>()));
    List<Trace> traces = new ArrayList<>();
    try (ZkServer server = ZkServer.start()) {
      if (cfg.runs(Scenario.BLIPS)) {
        add(byContender, "blips", step("blips", Blips.schedule(cfg).size() + " per contender",
            () -> Blips.run(cfg, server)));
      }
      if (cfg.runs(Scenario.PARTITIONS)) {
        Partitions p = new Partitions();
        add(byContender, "partitions", step("partitions", cfg.partitionTrials() + " per contender",
            () -> p.run(cfg, server)));
        cfg.contenders().stream().filter(p.traces::containsKey).forEach(c -> traces.add(p.traces.get(c)));
      }
      if (cfg.runs(Scenario.HEALS)) {
        Partitions p = new Partitions("heals", true);
        add(byContender, "heals", step("heals", cfg.partitionTrials()
            + " per contender, healed as the new holder takes over", () -> p.run(cfg, server)));
      }
      if (cfg.runs(Scenario.HANDOVER)) {
        add(byContender, "handover", step("handover", cfg.handoverTrials() + " per contender",
            () -> Handover.run(cfg, server)));
      }
      if (cfg.runs(Scenario.CRASH)) {
        add(byContender, "crash", step("crash", cfg.crashTrials() + " per contender",
            () -> Crash.run(cfg, server)));
      }
    }
    if (cfg.runs(Scenario.RANDOM)) {
      add(byContender, "random", step("random", cfg.randomTrials() + " seeded trials from seed "
          + cfg.seed(), () -> RandomTrials.run(cfg)));
    }
    Scale scale = null;
    if (cfg.runs(Scenario.SCALE)) {
      scale = step("scale", cfg.scaleLeases() + " amlease leases", () -> Scale.run(cfg));
    }
    Overhead overhead = null;
    if (cfg.runs(Scenario.OVERHEAD)) {
      overhead = step("overhead", "fenced vs plain writes", () -> Overhead.run(cfg));
    }
    LeaseTiming timing = AmleaseParticipant.defaultTiming(cfg.sessionTimeout());
    Results r = new Results(cfg.mode(), cfg.seed(), cfg.sessionTimeout().toMillis(),
        timing.grace().toMillis(), timing.renewInterval().toMillis(), Environment.describe(),
        byContender, scale, overhead, Math.round((System.nanoTime() - began) / 1e8) / 10.0,
        List.of(), Map.copyOf(errors), traces);
    return r.withChecks(Checks.of(r));
  }

  private static void add(Map<String, Map<String, ScenarioResult>> byContender, String scenario,
      Map<Contender, ScenarioResult> results) {
    if (results != null) {
      results.forEach((c, r) -> byContender.get(c.label()).put(scenario, r));
    }
  }

  /** Runs one scenario; on failure records the error, tells stderr, and returns null. */
  private <T> T step(String name, String what, Step<T> body) {
    progress.printf("amlease bench: [%4.0fs] %s (%s)%n", (System.nanoTime() - began) / 1e9, name, what);
    try {
      return body.run();
    } catch (Exception e) {
      errors.put(name, e.toString());
      progress.println("amlease bench: " + name + " failed: " + e);
      e.printStackTrace(progress);
      return null;
    }
  }
}
