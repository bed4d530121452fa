package io.amlease.bench;

import io.amlease.bench.BenchConfig.Scenario;
import io.amlease.lease.LeaseTiming;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Runs the configured scenarios in order and gathers their figures. */
final class Benchmark {
  private Benchmark() {}

  static Results run(BenchConfig cfg, PrintStream progress) throws Exception {
    long began = System.nanoTime();
    Map<String, Map<String, ScenarioResult>> byContender = new LinkedHashMap<>();
    cfg.contenders().forEach(c -> byContender.put(c.label(), new LinkedHashMap<>()));
    List<Trace> traces = new ArrayList<>();
    try (ZkServer server = ZkServer.start()) {
      if (cfg.runs(Scenario.BLIPS)) {
        step(progress, began, "blips", Blips.schedule(cfg).size() + " per contender");
        add(byContender, "blips", Blips.run(cfg, server));
      }
      if (cfg.runs(Scenario.PARTITIONS)) {
        step(progress, began, "partitions", cfg.partitionTrials() + " per contender");
        Partitions p = new Partitions();
        add(byContender, "partitions", p.run(cfg, server));
        cfg.contenders().stream().filter(p.traces::containsKey).forEach(c -> traces.add(p.traces.get(c)));
      }
      if (cfg.runs(Scenario.HANDOVER)) {
        step(progress, began, "handover", cfg.handoverTrials() + " per contender");
        add(byContender, "handover", Handover.run(cfg, server));
      }
      if (cfg.runs(Scenario.CRASH)) {
        step(progress, began, "crash", cfg.crashTrials() + " per contender");
        add(byContender, "crash", Crash.run(cfg, server));
      }
    }
    if (cfg.runs(Scenario.RANDOM)) {
      step(progress, began, "random", cfg.randomTrials() + " seeded trials from seed " + cfg.seed());
      add(byContender, "random", RandomTrials.run(cfg));
    }
    Scale scale = null;
    if (cfg.runs(Scenario.SCALE)) {
      step(progress, began, "scale", cfg.scaleLeases() + " amlease leases");
      scale = Scale.run(cfg);
    }
    Overhead overhead = null;
    if (cfg.runs(Scenario.OVERHEAD)) {
      step(progress, began, "overhead", "fenced vs plain writes");
      overhead = Overhead.run(cfg);
    }
    LeaseTiming timing = AmleaseParticipant.defaultTiming(cfg.sessionTimeout());
    Results r = new Results(cfg.mode(), cfg.seed(), cfg.sessionTimeout().toMillis(),
        timing.grace().toMillis(), timing.renewInterval().toMillis(), Environment.describe(),
        byContender, scale, overhead, Math.round((System.nanoTime() - began) / 1e8) / 10.0,
        List.of(), traces);
    return r.withChecks(Checks.of(r));
  }

  private static void add(Map<String, Map<String, ScenarioResult>> byContender, String scenario,
      Map<Contender, ScenarioResult> results) {
    results.forEach((c, r) -> byContender.get(c.label()).put(scenario, r));
  }

  private static void step(PrintStream progress, long began, String name, String what) {
    progress.printf("amlease bench: [%4.0fs] %s (%s)%n", (System.nanoTime() - began) / 1e9, name, what);
  }
}
