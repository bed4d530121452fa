package io.amlease.bench;

import io.amlease.testkit.FaultProxy;
import java.time.Duration;

/**
 * The set-up of scenarios 1–4: holder {@code a} reaches ZooKeeper through a fault proxy and holds the
 * lease; contender {@code b} is connected directly and waits in the election.
 */
final class Pair implements AutoCloseable {
  static final Duration SETUP = Duration.ofSeconds(15);

  final FaultProxy proxy;
  final Timeline timeline;
  final Participant a;
  final Participant b;

  private Pair(FaultProxy proxy, Timeline timeline, Participant a, Participant b) {
    this.proxy = proxy;
    this.timeline = timeline;
    this.a = a;
    this.b = b;
  }

  static Pair open(Contender c, ZkServer server, String path, Duration t) throws Exception {
    Timeline timeline = new Timeline();
    FaultProxy proxy = FaultProxy.start(server.address());
    Pair p = new Pair(proxy, timeline,
        c.participant("a", proxy.connectString(), path, t, timeline, false),
        c.participant("b", server.connectString(), path, t, timeline, false));
    try {
      p.a.start();
      require(Waits.until(p.a::acting, SETUP), c, "holder a did not acquire", SETUP);
      p.b.start();
      require(Waits.until(() -> p.b.participants() == 2, SETUP), c, "contender b did not join",
          SETUP);
      return p;
    } catch (Exception | Error e) {
      p.close();
      throw e;
    }
  }

  /** Fails the trial when a set-up or take-over step did not happen in time. */
  static void require(boolean ok, Contender c, String what, Duration within) {
    if (!ok) {
      throw new IllegalStateException(c.label() + ": " + what + " within " + within.toMillis() + " ms");
    }
  }

  /** The proxy goes first: its resets let both sessions close at once instead of timing out. */
  @Override
  public void close() {
    proxy.close();
    a.close();
    b.close();
  }
}
