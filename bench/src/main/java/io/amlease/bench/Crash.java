package io.amlease.bench;

import io.amlease.lease.Durations;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Scenario 4: the holder runs in its own JVM and is killed with SIGKILL. A latch's holder is a
 * {@link CrashHolder}: the contender, in this JVM, can only take over once the server expires the
 * dead session (≈ T). amlease's is {@code bin/amlease hold} with a COMMAND, as a user runs it: its
 * reaper, which outlives it, ends COMMAND's group and then the dead runner's session, so the
 * contender takes over without waiting for T (the machine lives; losing it costs ≈ T still).
 */
final class Crash {
  private static final AtomicInteger PATHS = new AtomicInteger();
  private static final Duration CHILD_START = Duration.ofSeconds(60);
  private static final Duration SETTLE = Duration.ofSeconds(5);

  private Crash() {}

  static Map<Contender, ScenarioResult> run(BenchConfig cfg, ZkServer server) throws Exception {
    return Parallel.forEach(cfg.contenders(), c -> {
      List<Double> failovers = new ArrayList<>();
      List<Map<String, Object>> details = new ArrayList<>();
      for (int i = 0; i < cfg.crashTrials(); i++) {
        double ms = trial(c, server, cfg.sessionTimeout());
        failovers.add(ms);
        Map<String, Object> d = new LinkedHashMap<>();
        d.put("failover_ms", ms);
        details.add(d);
      }
      return new ScenarioResult(cfg.crashTrials(), null, null, Summary.of(failovers), null, null,
          null, details);
    });
  }

  private static double trial(Contender c, ZkServer server, Duration t) throws Exception {
    String path = "/bench/crash/" + c.label() + "-" + PATHS.incrementAndGet();
    Process child = launch(c, server, path, t);
    Timeline timeline = new Timeline();
    try (Participant b = c.participant("b", server.connectString(), path, t, timeline, false)) {
      awaitActing(child, c);
      b.start();
      Pair.require(Waits.until(() -> b.participants() == 2, Pair.SETUP), c,
          "contender b did not join", Pair.SETUP);
      // A holder is killed some time into its term, not as it starts: amlease's reaper starts and
      // warms up its session closer when the term begins.
      Waits.sleep(SETTLE);
      long killed = System.nanoTime();
      child.destroyForcibly();
      child.waitFor(10, TimeUnit.SECONDS);
      Pair.require(Waits.until(b::acting, t.multipliedBy(3)), c, "contender b did not take over",
          t.multipliedBy(3));
      return Waits.ms(timeline.first("b", Timeline.Edge.START, killed).orElseThrow().nanos() - killed);
    } finally {
      child.destroyForcibly();
    }
  }

  private static Process launch(Contender c, ZkServer server, String path, Duration t)
      throws Exception {
    if (c == Contender.AMLEASE) {
      // COMMAND's output is hold's: it says ACTING once it runs, which is only under the lease.
      return ChildJvm.start(TortureLaunchers.HOLD_MAIN, "hold", "--zk", server.connectString(),
          "--lease", path, "--id", "crashing", "--session-timeout", Durations.format(t),
          "--stop-timeout", "1s", "--",
          "sh", "-c", "echo ACTING; exec sleep 3600");
    }
    return ChildJvm.start(CrashHolder.class, c.label(), server.connectString(), path,
        Long.toString(t.toMillis()));
  }

  private static void awaitActing(Process child, Contender c) throws Exception {
    CompletableFuture<Boolean> acting = CompletableFuture.supplyAsync(() -> {
      try (BufferedReader r = new BufferedReader(
          new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
        String line;
        while ((line = r.readLine()) != null) {
          if (line.equals("ACTING")) {
            return true;
          }
        }
        return false;
      } catch (java.io.IOException e) {
        return false;
      }
    });
    Boolean ok;
    try {
      ok = acting.get(CHILD_START.toSeconds(), TimeUnit.SECONDS);
    } catch (java.util.concurrent.TimeoutException e) {
      ok = false;
    }
    Pair.require(ok, c, "the holder process did not acquire", CHILD_START);
  }
}
