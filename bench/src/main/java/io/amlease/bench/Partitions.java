package io.amlease.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Scenario 2: the holder is silently partitioned for longer than 2 T, so its session expires and the
 * contender takes over. Per trial: {@code overlap = old holder stops acting − new holder starts acting}
 * (positive: two leaders at once), failover time (partition → new holder acting), and how many of
 * the old holder's writes ZooKeeper accepted after the new holder's first write ({@link Writers}).
 */
final class Partitions {
  private static final AtomicInteger PATHS = new AtomicInteger();

  /** The first trial of each contender, for the timeline picture. */
  final Map<Contender, Trace> traces = new ConcurrentHashMap<>();
  /** Heal this long after the new holder began acting, in the early-heal trials. */
  static final Duration HEAL_AFTER_TAKEOVER = Duration.ofMillis(50);
  private final String name;
  private final boolean healAtTakeover;

  /** Outages of 2.25 T: every session expires, and the old holder hears so only at the heal. */
  Partitions() {
    this("partitions", false);
  }

  /**
   * With {@code healAtTakeover}, each outage ends {@link #HEAL_AFTER_TAKEOVER} after the new
   * holder began acting (at 2.25 T at the latest): the old holder's link comes back while a
   * tolerant latch still believes it leads, and writes it had in flight reach ZooKeeper after the
   * new holder's.
   */
  Partitions(String name, boolean healAtTakeover) {
    this.name = name;
    this.healAtTakeover = healAtTakeover;
  }

  Map<Contender, ScenarioResult> run(BenchConfig cfg, ZkServer server) throws Exception {
    Duration t = cfg.sessionTimeout();
    Duration outage = t.multipliedBy(2).plus(t.dividedBy(4));
    return Parallel.forEach(cfg.contenders(), c -> {
      List<Double> overlaps = new ArrayList<>();
      List<Double> failovers = new ArrayList<>();
      List<Map<String, Object>> details = new ArrayList<>();
      for (int i = 0; i < cfg.partitionTrials(); i++) {
        Map<String, Object> d = trial(c, server, t, outage, i == 0);
        details.add(d);
        Optional.ofNullable((Double) d.get("overlap_ms")).ifPresent(overlaps::add);
        Optional.ofNullable((Double) d.get("failover_ms")).ifPresent(failovers::add);
      }
      return new ScenarioResult(cfg.partitionTrials(), null, Summary.of(overlaps),
          Summary.of(failovers), null, null, null, details);
    });
  }

  private Map<String, Object> trial(Contender c, ZkServer server, Duration t, Duration outage,
      boolean keepTrace) throws Exception {
    String path = "/bench/" + name + "/" + c.label() + "-" + PATHS.incrementAndGet();
    try (Pair p = Pair.open(c, server, path, t);
         Writers writers = Writers.start(server, path, p)) {
      long fault = System.nanoTime();
      p.proxy.silent();
      if (healAtTakeover) {
        Waits.until(p.b::acting, outage);
        Waits.sleepUntil(System.nanoTime() + HEAL_AFTER_TAKEOVER.toNanos());
      } else {
        Waits.sleepUntil(fault + outage.toNanos());
      }
      p.proxy.heal();
      long healed = System.nanoTime();
      // After the heal the old holder learns its session is gone, if it had not stopped already.
      Waits.until(() -> p.timeline.first("a", Timeline.Edge.STOP, fault).isPresent()
          && p.timeline.first("b", Timeline.Edge.START, fault).isPresent(), t.plusSeconds(2));
      Waits.sleepUntil(System.nanoTime() + Writers.AFTER.toNanos());
      long end = System.nanoTime();
      writers.stop();
      var aStop = p.timeline.first("a", Timeline.Edge.STOP, fault);
      var bStart = p.timeline.first("b", Timeline.Edge.START, fault);
      Map<String, Object> d = new LinkedHashMap<>();
      d.put("outage_ms", Waits.ms(healed - fault));
      aStop.ifPresent(e -> d.put("old_stopped_ms", Waits.ms(e.nanos() - fault)));
      bStart.ifPresent(e -> d.put("new_started_ms", Waits.ms(e.nanos() - fault)));
      d.put("old_never_stopped", aStop.isEmpty());
      writers.superseded().ifPresent(n -> d.put("superseded_writes", n));
      if (bStart.isPresent()) {
        long stop = aStop.map(Timeline.Event::nanos).orElse(end);
        d.put("overlap_ms", Waits.ms(stop - bStart.get().nanos()));
        d.put("failover_ms", Waits.ms(bStart.get().nanos() - fault));
      }
      if (keepTrace) {
        traces.put(c, new Trace(c, fault, healed, end, p.timeline.events()));
      }
      return d;
    }
  }
}
