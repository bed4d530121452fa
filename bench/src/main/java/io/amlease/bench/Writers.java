package io.amlease.bench;

import io.amlease.lease.zk.ZkClients;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.curator.framework.CuratorFramework;

/**
 * The writes of a partition trial: the old holder {@code a} writes to {@code <path>/data} every
 * {@link #PERIOD} for as long as it believes it leads, the way an application keeps its state; the
 * new holder {@code b} writes once as soon as it leads. A write of {@code a} that ZooKeeper
 * applied after {@code b}'s (a higher version of the node) is a superseded write accepted: the
 * old leader overwrote the new one's state. Counted on ZooKeeper's side: a version above
 * {@code b}'s that no answer reported is a write of {@code a}'s whose answer was lost (only
 * {@code b}, connected directly, writes once). Writes may block (a Curator client retries through a
 * partition), so each holder writes on a thread of its own: the new holder's first write must not
 * wait behind the old holder's.
 */
final class Writers implements AutoCloseable {
  static final Duration PERIOD = Duration.ofMillis(10);
  /** How long writes go on after both edges of the take-over were seen. */
  static final Duration AFTER = Duration.ofSeconds(1);

  private final Pair pair;
  private final String connect;
  private final String data;
  private volatile int finalVersion = -1;
  private final List<Integer> aVersions = new CopyOnWriteArrayList<>();
  private volatile Integer bVersion;
  private volatile boolean stopped;
  private final List<Thread> threads;

  private Writers(Pair pair, String connect, String data) {
    this.pair = pair;
    this.connect = connect;
    this.data = data;
    this.threads = List.of(new Thread(this::oldHolder, "bench-writer-a"),
        new Thread(this::newHolder, "bench-writer-b"));
    threads.forEach(t -> t.setDaemon(true));
  }

  static Writers start(ZkServer server, String path, Pair pair) throws Exception {
    String data = path + "/data";
    try (CuratorFramework admin = ZkClients.connectReader(server.connectString(),
        Duration.ofSeconds(5))) {
      admin.create().creatingParentsIfNeeded().forPath(data);
    }
    Writers w = new Writers(pair, server.connectString(), data);
    w.threads.forEach(Thread::start);
    return w;
  }

  private void oldHolder() {
    while (!stopped) {
      if (pair.a.acting()) {
        pair.a.write(data, new byte[] {'a'}).ifPresent(w -> aVersions.add(w.version()));
      }
      Waits.sleepUntil(System.nanoTime() + PERIOD.toNanos());
    }
  }

  private void newHolder() {
    while (!stopped && bVersion == null) {
      if (pair.b.acting()) {
        pair.b.write(data, new byte[] {'b'}).ifPresent(w -> bVersion = w.version());
      }
      Waits.sleepUntil(System.nanoTime() + PERIOD.toNanos());
    }
  }

  /** Stops writing and reads the node's final version (once). */
  void stop() {
    if (stopped) {
      return;
    }
    stopped = true;
    try {
      for (Thread t : threads) {
        t.join(Duration.ofSeconds(10).toMillis());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    try (CuratorFramework reader = ZkClients.connectReader(connect, Duration.ofSeconds(5))) {
      finalVersion = reader.checkExists().forPath(data).getVersion();
    } catch (Exception e) {
      finalVersion = -1; // Counted from the answers alone.
    }
  }

  /** The old holder's writes applied after the new holder's first; empty if b never wrote. */
  Optional<Long> superseded() {
    Integer b = bVersion;
    if (b == null) {
      return Optional.empty();
    }
    long answered = aVersions.stream().filter(v -> v > b).count();
    long unanswered = 0;
    for (int v = b + 1; v <= finalVersion; v++) {
      if (!aVersions.contains(v)) {
        unanswered++;
      }
    }
    return Optional.of(answered + unanswered);
  }

  @Override
  public void close() {
    stop();
  }
}
