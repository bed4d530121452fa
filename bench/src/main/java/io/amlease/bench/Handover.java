package io.amlease.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/** Scenario 3: the holder releases cleanly; how long until the waiting contender acts. */
final class Handover {
  private static final AtomicInteger PATHS = new AtomicInteger();

  private Handover() {}

  static Map<Contender, ScenarioResult> run(BenchConfig cfg, ZkServer server) throws Exception {
    return Parallel.forEach(cfg.contenders(), c -> {
      List<Double> latencies = new ArrayList<>();
      List<Double> overlaps = new ArrayList<>();
      List<Map<String, Object>> details = new ArrayList<>();
      for (int i = 0; i < cfg.handoverTrials(); i++) {
        String path = "/bench/handover/" + c.label() + "-" + PATHS.incrementAndGet();
        try (Pair p = Pair.open(c, server, path, cfg.sessionTimeout())) {
          long released = System.nanoTime();
          p.a.release();
          Waits.until(p.b::acting, cfg.sessionTimeout().multipliedBy(2));
          var aStop = p.timeline.first("a", Timeline.Edge.STOP, released);
          var bStart = p.timeline.first("b", Timeline.Edge.START, released);
          Map<String, Object> d = new LinkedHashMap<>();
          bStart.ifPresent(b -> {
            latencies.add(Waits.ms(b.nanos() - released));
            d.put("latency_ms", Waits.ms(b.nanos() - released));
            aStop.ifPresent(a -> {
              overlaps.add(Waits.ms(a.nanos() - b.nanos()));
              d.put("overlap_ms", Waits.ms(a.nanos() - b.nanos()));
            });
          });
          details.add(d);
        }
      }
      return new ScenarioResult(cfg.handoverTrials(), null, Summary.of(overlaps), null,
          Summary.of(latencies), null, null, details);
    });
  }
}
