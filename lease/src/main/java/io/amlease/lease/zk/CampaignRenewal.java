package io.amlease.lease.zk;

import io.amlease.lease.Clock;
import io.amlease.lease.LeaseConfigException;
import io.amlease.lease.LeaseTiming;
import java.time.Duration;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.ZooKeeper;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps a campaigning contender's session touched every renew interval (DESIGN.md §1 G2), as
 * {@link Liveness} does once it holds. The quorum leader hears of a session touched on a follower
 * only from that follower's answers to its pings; an idle session is touched by its client's pings
 * alone, T/3 apart. A term's {@code lastAck} is the send time of its acquiring multi; had the
 * session been idle before it, and the follower been cut off right after it, the leader would expire
 * the session up to T/3 earlier than G2 counts. A {@code sync} every renew interval bounds that lag
 * by the interval G2 already allows for.
 *
 * <p>Runs on the clock's timer thread; every request is asynchronous. It stops by itself once the
 * lease no longer campaigns.
 */
final class CampaignRenewal {
  private static final Logger LOG = LoggerFactory.getLogger(ZkLease.class);

  private final LeasePaths paths;
  private final Clock clock;
  private final BooleanSupplier campaigning;
  /** The timing for a session timeout the server negotiated. */
  private final Function<Duration, LeaseTiming> timingFor;
  private final ZkSource zk;
  // Guarded by this.
  private Duration interval;
  private Clock.Timer timer;

  CampaignRenewal(LeasePaths paths, Clock clock, BooleanSupplier campaigning,
      Function<Duration, LeaseTiming> timingFor, ZkSource zk) {
    this.paths = paths;
    this.clock = clock;
    this.campaigning = campaigning;
    this.timingFor = timingFor;
    this.zk = zk;
  }

  /**
   * Starts renewing at the interval of the session's negotiated timing; the session was touched
   * just now, by the requests that set up the campaign.
   */
  synchronized void start(Duration renewInterval) {
    interval = renewInterval;
    timer = clock.schedule(this::tick, interval);
  }

  synchronized void stop() {
    if (timer != null) {
      timer.cancel();
    }
  }

  private void tick() {
    if (!campaigning.getAsBoolean()) {
      return;
    }
    send();
    synchronized (this) {
      timer = clock.schedule(this::tick, interval);
    }
  }

  private void send() {
    ZooKeeper handle;
    try {
      handle = zk.get();
    } catch (Exception e) {
      return; // No handle yet (a new session after an expiry): the next tick tries again.
    }
    adaptTo(handle.getSessionTimeout());
    handle.sync(paths.latch(), (rc, path, ctx) -> {
      if (Code.get(rc) != Code.OK) {
        LOG.debug("campaign renewal of {} answered {}", paths.root(), Code.get(rc));
      }
    }, null);
  }

  /** A reconnect may have shortened the session's timeout, and with it the interval G2 counts. */
  private void adaptTo(int timeoutMillis) {
    if (timeoutMillis <= 0) {
      return;
    }
    try {
      Duration forSession = timingFor.apply(Duration.ofMillis(timeoutMillis)).renewInterval();
      synchronized (this) {
        interval = forSession;
      }
    } catch (LeaseConfigException e) {
      // The acquisition refuses such a session with the reason; keep renewing meanwhile.
    }
  }
}
