package io.amlease.lease.zk;

import io.amlease.lease.Clock;
import io.amlease.lease.Durations;
import io.amlease.lease.LeaseConfigException;
import io.amlease.lease.LeaseObserver;
import io.amlease.lease.LeaseTiming;
import io.amlease.lease.RevocationReason;
import java.time.Duration;
import java.util.function.BiConsumer;
import java.util.function.Function;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;

/**
 * The liveness of one term, and the only holder of its {@code lastAck}: renews on the term's
 * session through the quorum leader, arms the watch that reports supersession, and revokes at
 * {@code lastAck + grace} whatever Curator's connection state says (DESIGN.md §2, G2).
 *
 * <p>{@code lastAck} is the send time of the newest request ZooKeeper answered on the term's
 * session. Only answers that went through the quorum leader count: a {@code sync} (renewals), the
 * acquiring multi and fenced writes. The leader cannot expire the session before {@code lastAck + T}
 * less the lag with which it hears of a follower's touches (one renew interval, counted in G2).
 *
 * <p>The server a session reconnects to may clamp its timeout to bounds of its own (a rolling restart
 * with another {@code maxSessionTimeout} or {@code tickTime}), and touches the session with that
 * value from then on. So before any ack counts, and at every renewal tick and reconnect, the
 * session's current timeout is compared with the term's: a shorter one shrinks the grace to what G2
 * allows for it (the deadline only ever moves earlier), or ends the term when no grace fits
 * (TIMEOUT_RENEGOTIATED).
 *
 * <p>Threads: renewals, the watchdog and the watch's verdicts run on the clock's timer thread; the
 * revocation they ask for goes to the lease, never under this object's lock.
 */
final class Liveness {
  private final Term term;
  private final Clock clock;
  /** The timing for a session timeout the server negotiated; throws when G2 cannot hold for it. */
  private final Function<Duration, LeaseTiming> retime;
  private final LeasePaths paths;
  private final LeaseObserver observer;
  private final ZkSource zk;
  /** Ends this term, if it is still current, for a reason and a detail. */
  private final BiConsumer<RevocationReason, String> revoke;

  // Guarded by this.
  private LeaseTiming timing;
  private long lastAck;
  private boolean stopped;
  private Clock.Timer renewTimer;
  private Clock.Timer watchdogTimer;
  private volatile boolean epochWatched;

  Liveness(Term term, long acquiredSentNanos, Clock clock, LeaseTiming timing,
      Function<Duration, LeaseTiming> retime, LeasePaths paths, LeaseObserver observer, ZkSource zk,
      BiConsumer<RevocationReason, String> revoke) {
    this.term = term;
    this.lastAck = acquiredSentNanos;
    this.clock = clock;
    this.timing = timing;
    this.retime = retime;
    this.paths = paths;
    this.observer = observer;
    this.zk = zk;
    this.revoke = revoke;
  }

  /** Schedules the renewals and the watchdog. Call under the lease's lock, with the grant. */
  synchronized void start() {
    renewTimer = clock.schedule(this::renew, timing.renewInterval());
    scheduleWatchdog();
  }

  /** Stops renewing and watching; the term is over. Idempotent. */
  synchronized void stop() {
    stopped = true;
    if (renewTimer != null) {
      renewTimer.cancel();
    }
    if (watchdogTimer != null) {
      watchdogTimer.cancel();
    }
  }

  /**
   * Records a request sent at {@code sentNanos} that {@code handle} saw answered; answers may arrive
   * out of order. The answer counts only once the timing fits the timeout the session has now.
   */
  void ack(long sentNanos, ZooKeeper handle) {
    if (!timeoutFits(handle)) {
      return;
    }
    synchronized (this) {
      if (sentNanos - lastAck > 0) {
        lastAck = sentNanos;
      }
    }
  }

  synchronized LeaseTiming timing() {
    return timing;
  }

  /**
   * G2 for the session timeout {@code handle} negotiated last: false (and the term revoked) when it
   * is shorter than the term's and no grace fits it; a shorter one that fits shrinks the grace.
   * A longer one changes nothing: the term keeps the shorter timing it has.
   */
  boolean timeoutFits(ZooKeeper handle) {
    long ms = handle.getSessionTimeout();
    LeaseTiming current = timing();
    if (ms <= 0 || ms >= current.sessionTimeout().toMillis()) {
      return true;
    }
    Duration t = Duration.ofMillis(ms);
    LeaseTiming shorter;
    try {
      shorter = retime.apply(t);
    } catch (LeaseConfigException e) {
      revoke.accept(RevocationReason.TIMEOUT_RENEGOTIATED, "the session reconnected with timeout "
          + Durations.format(t) + ", less than the term's " + Durations.format(
              current.sessionTimeout()) + ", and the term's timing does not fit it: "
          + e.getMessage());
      return false;
    }
    synchronized (this) {
      if (stopped || timing.sessionTimeout().compareTo(t) <= 0) {
        return !stopped;
      }
      Duration grace = shorter.grace().compareTo(timing.grace()) < 0 ? shorter.grace()
          : timing.grace();
      timing = new LeaseTiming(t, grace, shorter.renewInterval(), shorter.stopTimeout());
      if (watchdogTimer != null) {
        watchdogTimer.cancel();
      }
      scheduleWatchdog(); // The deadline moved earlier.
    }
    observer.timingChanged(term.epoch, term.sessionId, timing());
    return true;
  }

  synchronized long lastAck() {
    return lastAck;
  }

  synchronized long deadline() {
    return lastAck + timing.grace().toNanos();
  }

  boolean expired(long nowNanos) {
    return nowNanos - deadline() >= 0;
  }

  /** {@link #timeoutFits} for the session's current handle, if there is one. */
  void recheckTimeout() {
    try {
      timeoutFits(zk.get());
    } catch (Exception e) {
      // No handle: the next renewal tick checks again.
    }
  }

  /**
   * Curator's view of the connection. Only a lost session ends the term early; a SUSPENDED
   * connection is what the grace is for, and a reconnect renews at once, the earliest moment
   * {@code lastAck} can move again.
   */
  void connectionState(ConnectionState state) {
    if (state == ConnectionState.LOST) {
      revoke.accept(RevocationReason.SESSION_LOST, "Curator reported the session lost");
    } else if (state == ConnectionState.RECONNECTED) {
      try {
        if (!timeoutFits(zk.get())) {
          return;
        }
      } catch (Exception e) {
        return; // No handle: the renewal tick tries again.
      }
      sendRenewal();
    }
  }

  private void renew() {
    try {
      sendRenewal(); // First: it may shorten the interval.
    } finally {
      // Whatever this tick met: without the next one, renewals would stop and the watchdog end a
      // healthy term (G1), and the timer thread would swallow the error unseen.
      synchronized (this) {
        if (!stopped) {
          renewTimer = clock.schedule(this::renew, timing.renewInterval());
        }
      }
    }
  }

  /**
   * One {@code sync} on the epoch node: proves the session alive through the quorum leader (G2).
   * A follower answers a sync only after the leader has answered it, so a follower cut off from the
   * leader cannot acknowledge renewals from its own stale state, as it could a read: it keeps
   * answering reads for up to syncLimit × tickTime after losing the leader. Supersession is
   * reported by the epoch watch ({@link #watchEpoch}).
   */
  private void sendRenewal() {
    ZooKeeper handle;
    try {
      handle = zk.get();
    } catch (Exception e) {
      observer.renewalFailed(term.epoch, term.sessionId, "not sent: " + e);
      return;
    }
    if (handle.getSessionId() != term.sessionId) {
      revoke.accept(RevocationReason.SESSION_LOST, "the client is on session 0x"
          + Long.toHexString(handle.getSessionId()) + ", the term's session was 0x"
          + Long.toHexString(term.sessionId));
      return;
    }
    if (!timeoutFits(handle)) {
      return;
    }
    if (!epochWatched) {
      // The watch could not be set at the grant (a blip): without it nothing would see a newer
      // epoch while the session lives, so try again with every renewal until it is set.
      watchEpoch();
    }
    long sent = clock.nanoTime();
    handle.sync(paths.epoch(), (rc, path, ctx) -> {
      Code code = Code.get(rc);
      if (code == Code.OK) {
        ack(sent, handle);
        observer.renewed(Duration.ofNanos(clock.nanoTime() - sent));
      } else if (code == Code.SESSIONEXPIRED) {
        revoke.accept(RevocationReason.SESSION_LOST, "renewal: session expired");
      } else {
        observer.renewalFailed(term.epoch, term.sessionId, "answered " + code);
      }
    }, null);
  }

  /**
   * Supersession shows as a change of {@code <lease>/epoch}: a one-shot watch reports it without a
   * read per renewal (a {@code sync} returns no stat). The watch is answered from the connected
   * server's state, which may lag; that only delays detection, never safety: fencing (G3) and the
   * deadline (G2) do not depend on it. Its verdicts run on the clock's timer thread, with the
   * renewals and the watchdog, so that a process pause (a frozen clock in tests) holds them all.
   */
  void watchEpoch() {
    ZooKeeper handle;
    try {
      handle = zk.get();
    } catch (Exception e) {
      return; // Armed by the next renewal.
    }
    Watcher onChange = event -> {
      if (event.getType() == Watcher.Event.EventType.NodeDataChanged
          || event.getType() == Watcher.Event.EventType.NodeDeleted) {
        superseded(paths.epoch() + " changed (" + event.getType() + "); our token is "
            + term.epoch.token());
      }
    };
    handle.exists(paths.epoch(), onChange, (rc, path, ctx, stat) -> {
      Code code = Code.get(rc);
      if (code == Code.OK && stat.getVersion() == term.epoch.token()) {
        epochWatched = true; // A watch outlives reconnects of its session: set until it fires.
      } else if (code == Code.OK || code == Code.NONODE) {
        superseded(paths.epoch() + " is at version " + (stat == null ? "none" : stat.getVersion())
            + ", our token is " + term.epoch.token());
      }
    }, null);
  }

  private void superseded(String detail) {
    clock.schedule(() -> revoke.accept(RevocationReason.SUPERSEDED, detail), Duration.ZERO);
  }

  private synchronized void scheduleWatchdog() {
    watchdogTimer = clock.schedule(this::watchdog, Duration.ofNanos(deadline() - clock.nanoTime()));
  }

  private void watchdog() {
    synchronized (this) {
      if (stopped) {
        return;
      }
      if (!expired(clock.nanoTime())) {
        scheduleWatchdog();
        return;
      }
    }
    revoke.accept(RevocationReason.GRACE_EXPIRED, "no answer from ZooKeeper for "
        + Durations.format(timing().grace()) + " since the last acknowledged request");
  }
}
