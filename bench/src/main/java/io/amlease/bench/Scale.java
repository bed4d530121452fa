package io.amlease.bench;

import io.amlease.lease.LeaseTiming;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * Scenario 6: N amlease leases held by this JVM against one ZooKeeper server (each lease its own
 * session, as N separate applications would have): time to acquire all, ZooKeeper requests per second
 * per lease at steady state, heap per lease, and revocations across a server restart (expect none: a
 * restart is shorter than grace).
 *
 * @param leases N
 * @param acquireAllMs start of the first {@code start()} → the last lease granted
 * @param requestsPerSecondPerLease packets the server received over the measuring window, per lease
 * @param heapBytesPerLease used heap after a GC, before and after, divided by N (includes the
 *     in-process server's share for each session)
 * @param restartRevocations leases revoked within T of a server restart
 * @param holdingAfterRestart leases still holding after it
 */
record Scale(int leases, double acquireAllMs, double requestsPerSecondPerLease,
    long heapBytesPerLease, long restartRevocations, long holdingAfterRestart) {

  private static final int STARTERS = 8;

  static Scale run(BenchConfig cfg) throws Exception {
    int n = cfg.scaleLeases();
    Duration t = cfg.sessionTimeout();
    LeaseTiming timing = AmleaseParticipant.defaultTiming(t);
    Timeline timeline = new Timeline();
    List<Participant> leases = new ArrayList<>();
    ExecutorService pool = Executors.newFixedThreadPool(STARTERS);
    ZkServer server = ZkServer.start();
    try {
      long heapBefore = usedHeap();
      for (int i = 0; i < n; i++) {
        leases.add(Contender.AMLEASE.participant("s" + i, server.connectString(),
            "/bench/scale/lease-" + i, t, timeline, false));
      }
      long started = System.nanoTime();
      List<Future<?>> starts = new ArrayList<>();
      for (Participant p : leases) {
        starts.add(pool.submit(() -> {
          p.start();
          return null;
        }));
      }
      for (Future<?> f : starts) {
        f.get(5, TimeUnit.MINUTES);
      }
      if (!Waits.until(() -> leases.stream().allMatch(Participant::acting), Duration.ofMinutes(5))) {
        throw new IllegalStateException("scale: not all " + n + " leases acquired within 5 min");
      }
      double acquireAll = Waits.ms(System.nanoTime() - started);
      long heapPerLease = (usedHeap() - heapBefore) / n;

      long before = server.packetsReceived();
      long from = System.nanoTime();
      Waits.sleep(cfg.measureWindow());
      long received = server.packetsReceived() - before;
      double seconds = (System.nanoTime() - from) / 1e9;

      long restarted = System.nanoTime();
      server.restart();
      Waits.sleep(timing.grace().plus(t.dividedBy(2)));
      long revoked = timeline.events().stream()
          .filter(e -> e.edge() == Timeline.Edge.STOP && e.nanos() - restarted >= 0).count();
      long holding = leases.stream().filter(Participant::acting).count();
      return new Scale(n, acquireAll, Math.round(received / seconds / n * 1000) / 1000.0,
          heapPerLease, revoked, holding);
    } finally {
      pool.shutdownNow();
      // Leases first: with the server gone, each close would wait out its grace and revoke.
      closeAll(leases);
      server.close();
    }
  }

  private static void closeAll(List<Participant> leases) throws InterruptedException {
    ExecutorService closers = Executors.newFixedThreadPool(STARTERS);
    leases.forEach(p -> closers.execute(p::close));
    closers.shutdown();
    closers.awaitTermination(2, TimeUnit.MINUTES);
  }

  private static long usedHeap() {
    Runtime rt = Runtime.getRuntime();
    for (int i = 0; i < 3; i++) {
      System.gc();
      Waits.sleep(Duration.ofMillis(100));
    }
    return rt.totalMemory() - rt.freeMemory();
  }
}
