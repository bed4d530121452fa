package io.amlease.demo;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Remembers every process this JVM started, directly or not (MiniYARNCluster's containers are real
 * processes: launch scripts, AM JVMs, the masters they start, workers), and kills those still alive
 * at the end. Sampling matters: a master whose AM died is re-parented and is no longer a descendant.
 * A {@link ProcessHandle} carries its start time, so a recycled pid is never mistaken for ours.
 */
final class ProcessSweeper {
  private static final Duration SAMPLE_EVERY = Duration.ofMillis(500);

  private final Set<ProcessHandle> seen = ConcurrentHashMap.newKeySet();
  private final ScheduledExecutorService sampler = Executors.newSingleThreadScheduledExecutor(r -> {
    Thread t = new Thread(r, "process-sweeper");
    t.setDaemon(true);
    return t;
  });

  void start() {
    sampler.scheduleWithFixedDelay(this::sample, 0, SAMPLE_EVERY.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** Also remember {@code pid} (seen alive just now, e.g. in a record the process wrote). */
  void remember(long pid) {
    ProcessHandle.of(pid).ifPresent(seen::add);
  }

  private void sample() {
    ProcessHandle.current().descendants().forEach(seen::add);
  }

  /**
   * Stops sampling; SIGTERMs what is still alive, then SIGKILLs what is left after {@code grace}.
   *
   * @return how many processes had to be killed
   */
  int killLeftovers(Duration grace) throws InterruptedException {
    sampler.shutdownNow();
    sampler.awaitTermination(5, TimeUnit.SECONDS);
    sample();
    List<ProcessHandle> alive = seen.stream().filter(ProcessHandle::isAlive).toList();
    alive.forEach(ProcessHandle::destroy);
    long deadline = System.nanoTime() + grace.toNanos();
    while (alive.stream().anyMatch(ProcessHandle::isAlive) && System.nanoTime() < deadline) {
      Thread.sleep(100);
    }
    alive.stream().filter(ProcessHandle::isAlive).forEach(ProcessHandle::destroyForcibly);
    return alive.size();
  }
}
