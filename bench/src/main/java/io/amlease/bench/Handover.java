package io.amlease.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Scenario 3: the holder releases cleanly; how long until the waiting contender acts. A handover
 * takes milliseconds, so the contenders take turns (one handover each per round) instead of running
 * at once as in the other scenarios: on two cores, side by side, each would measure the others'
 * CPU use. The first rounds (as many as the trials, at most {@link #WARM_UP}) warm up the JIT
 * and are not counted.
 */
final class Handover {
  static final int WARM_UP = 10;
  private static final AtomicInteger PATHS = new AtomicInteger();

  private Handover() {}

  private static final class Tally {
    final List<Double> latencies = new ArrayList<>();
    final List<Double> overlaps = new ArrayList<>();
    final List<Map<String, Object>> details = new ArrayList<>();
  }

  static Map<Contender, ScenarioResult> run(BenchConfig cfg, ZkServer server) throws Exception {
    Map<Contender, Tally> tallies = new LinkedHashMap<>();
    cfg.contenders().forEach(c -> tallies.put(c, new Tally()));
    int warmUp = Math.min(WARM_UP, cfg.handoverTrials());
    for (int round = -warmUp; round < cfg.handoverTrials(); round++) {
      for (Contender c : cfg.contenders()) {
        Map<String, Object> d = once(cfg, server, c);
        if (round >= 0) {
          Tally t = tallies.get(c);
          t.details.add(d);
          if (d.get("latency_ms") instanceof Double latency) {
            t.latencies.add(latency);
          }
          if (d.get("overlap_ms") instanceof Double overlap) {
            t.overlaps.add(overlap);
          }
        }
      }
    }
    Map<Contender, ScenarioResult> out = new LinkedHashMap<>();
    tallies.forEach((c, t) -> out.put(c, new ScenarioResult(cfg.handoverTrials(), null,
        Summary.of(t.overlaps), null, Summary.of(t.latencies), null, null, t.details)));
    return out;
  }

  /** One handover of contender {@code c}: its latency and overlap, when both edges were seen. */
  private static Map<String, Object> once(BenchConfig cfg, ZkServer server, Contender c)
      throws Exception {
    String path = "/bench/handover/" + c.label() + "-" + PATHS.incrementAndGet();
    Map<String, Object> d = new LinkedHashMap<>();
    try (Pair p = Pair.open(c, server, path, cfg.sessionTimeout())) {
      long released = System.nanoTime();
      p.a.release();
      Waits.until(p.b::acting, cfg.sessionTimeout().multipliedBy(2));
      var aStop = p.timeline.first("a", Timeline.Edge.STOP, released);
      p.timeline.first("b", Timeline.Edge.START, released).ifPresent(b -> {
        d.put("latency_ms", Waits.ms(b.nanos() - released));
        aStop.ifPresent(a -> d.put("overlap_ms", Waits.ms(a.nanos() - b.nanos())));
      });
    }
    return d;
  }
}
