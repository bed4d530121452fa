package io.amlease.bench;

import io.amlease.lease.LeaseTiming;
import io.amlease.testkit.FaultProxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Scenario 1: short outages of the holder's path to ZooKeeper, silent and reset, from 0.1 T to
 * 0.9 × grace (amlease's default grace for T). A holder that stops acting over one is a false
 * revocation. Each blip is also classed against DESIGN.md G1's promise, {@code grace − renewInterval}
 * out of touch ({@link #withinG1}).
 */
final class Blips {
  enum Kind { SILENT, RESET }

  record Blip(Kind kind, Duration duration) {}

  /** The longest random sleep of the ZooKeeper client before a reconnect attempt. */
  static final Duration RECONNECT_JITTER = Duration.ofSeconds(1);

  private static final AtomicInteger PATHS = new AtomicInteger();

  private Blips() {}

  static List<Blip> schedule(BenchConfig cfg) {
    Duration t = cfg.sessionTimeout();
    LeaseTiming timing = AmleaseParticipant.defaultTiming(t);
    long from = t.toNanos() / 10;
    long to = timing.grace().toNanos() * 9 / 10;
    int n = cfg.blipDurations();
    List<Blip> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      long d = n == 1 ? to : from + (to - from) * i / (n - 1);
      for (Kind k : Kind.values()) {
        out.add(new Blip(k, Duration.ofNanos(d)));
      }
    }
    return out;
  }

  static Map<Contender, ScenarioResult> run(BenchConfig cfg, ZkServer server) throws Exception {
    List<Blip> blips = schedule(cfg);
    LeaseTiming timing = AmleaseParticipant.defaultTiming(cfg.sessionTimeout());
    return Parallel.forEach(cfg.contenders(), c -> {
      int revoked = 0;
      List<Map<String, Object>> details = new ArrayList<>();
      for (Blip blip : blips) {
        Map<String, Object> d = trial(c, server, cfg.sessionTimeout(), blip);
        d.put("within_g1_bound", withinG1(blip, timing));
        revoked += (Boolean) d.get("revoked") ? 1 : 0;
        details.add(d);
      }
      return new ScenarioResult(blips.size(), revoked, null, null, null, null, null, details);
    });
  }

  /**
   * Whether G1 promises that {@code blip} costs nothing: the holder is out of touch for less than
   * {@code grace − renewInterval}. A silent blip ends when the link heals (shorter than the client's
   * 2T/3 read timeout, the connection survives it); a reset ends only when the client has
   * reconnected, and the ZooKeeper client sleeps a random 0–1 s before every attempt
   * ({@code ClientCnxn}), so a reset is counted with that second added.
   */
  static boolean withinG1(Blip blip, LeaseTiming timing) {
    Duration outOfTouch = blip.kind() == Kind.RESET
        ? blip.duration().plus(RECONNECT_JITTER) : blip.duration();
    return outOfTouch.compareTo(timing.grace().minus(timing.renewInterval())) < 0;
  }

  private static Map<String, Object> trial(Contender c, ZkServer server, Duration t, Blip blip)
      throws Exception {
    String path = "/bench/blips/" + c.label() + "-" + PATHS.incrementAndGet();
    try (Pair p = Pair.open(c, server, path, t)) {
      long fault = System.nanoTime();
      inject(p.proxy, blip.kind());
      Waits.sleepUntil(fault + blip.duration().toNanos());
      p.proxy.heal();
      long healed = System.nanoTime();
      // Until the holder has heard from ZooKeeper again (a revocation can come after the heal, while
      // the client is still reconnecting), then a little longer for callbacks in flight.
      Waits.until(() -> p.a.recoveredSince(healed), t.multipliedBy(2));
      Waits.sleep(Duration.ofMillis(500));
      long end = System.nanoTime();
      Map<String, Object> d = new LinkedHashMap<>();
      d.put("kind", blip.kind().name().toLowerCase());
      d.put("duration_ms", blip.duration().toMillis());
      d.put("revoked", p.timeline.count("a", Timeline.Edge.STOP, fault, end) > 0);
      d.put("failed_over", p.timeline.count("b", Timeline.Edge.START, fault, end) > 0);
      p.timeline.first("a", Timeline.Edge.STOP, fault)
          .ifPresent(e -> d.put("revoked_after_ms", Waits.ms(e.nanos() - fault)));
      return d;
    }
  }

  static void inject(FaultProxy proxy, Kind kind) {
    if (kind == Kind.SILENT) {
      proxy.silent();
    } else {
      proxy.reset();
    }
  }
}
