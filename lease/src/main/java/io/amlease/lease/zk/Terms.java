package io.amlease.lease.zk;

import io.amlease.lease.Clock;
import io.amlease.lease.Epoch;
import io.amlease.lease.LeaseException;
import io.amlease.lease.LeaseListener;
import io.amlease.lease.LeaseObserver;
import io.amlease.lease.LeaseState;
import io.amlease.lease.LeaseState.Phase;
import io.amlease.lease.LeaseTiming;
import io.amlease.lease.RevocationReason;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.apache.curator.framework.state.ConnectionState;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one state machine of a lease's terms (DESIGN.md §3): LATENT → CAMPAIGNING → HOLDING →
 * REVOKED, or FAILED; CLOSED from any phase. It keeps the current term and its {@link Liveness},
 * and reports each edge: queued to the listener's event thread and told to the observers under the
 * lock, together with the change it reports, so that a term's {@code granted} always precedes its
 * {@code revoked}. State is guarded by {@code this}; no ZooKeeper call is made under the lock.
 */
final class Terms {
  private static final Logger LOG = LoggerFactory.getLogger(ZkLease.class);

  private final String leasePath;
  private final LeaseListener listener;
  private final LeaseObserver observer;
  private final Clock clock;
  private final ExecutorService events;

  // Guarded by this.
  private Phase phase = Phase.LATENT;
  private Term term;
  private Liveness liveness;
  private Epoch lastEpoch;
  private RevocationReason lastReason;
  private LeaseTiming timing;

  Terms(String leasePath, String holderId, LeaseListener listener, LeaseObserver observer,
      Clock clock, LeaseTiming requested) {
    this.leasePath = leasePath;
    this.listener = listener;
    this.observer = observer;
    this.clock = clock;
    this.timing = requested;
    this.events = Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, "amlease-events-" + holderId);
      t.setDaemon(true);
      return t;
    });
  }

  /** LATENT → CAMPAIGNING; a lease starts once. */
  synchronized void starting() {
    if (phase != Phase.LATENT) {
      throw new IllegalStateException("start() may be called once; phase is " + phase);
    }
    phase = Phase.CAMPAIGNING;
  }

  /** A step of start() that must not happen once close() has run: it runs under the lock. */
  interface StartStep {
    void run() throws Exception;
  }

  /** Runs {@code step} if still CAMPAIGNING; otherwise the lease was closed while starting. */
  synchronized void whileCampaigning(StartStep step) throws Exception {
    if (phase != Phase.CAMPAIGNING) {
      throw new LeaseException("lease " + leasePath + " was closed while starting");
    }
    step.run();
  }

  synchronized boolean campaigning() {
    return phase == Phase.CAMPAIGNING;
  }

  synchronized void timing(LeaseTiming negotiated) {
    timing = negotiated;
  }

  /** CAMPAIGNING → HOLDING with term {@code t}, whose liveness {@code l} starts now. */
  void granted(Term t, Liveness l, LeaseTiming sessionTiming) {
    synchronized (this) {
      if (phase != Phase.CAMPAIGNING) {
        // Closed while acquiring: closing the session removes our ephemeral leader node.
        return;
      }
      timing = sessionTiming;
      phase = Phase.HOLDING;
      term = t;
      liveness = l;
      lastEpoch = t.epoch;
      // Queued under the lock: a revocation can only queue its edge after this one (edges in order).
      events.execute(() -> listener.granted(t.epoch));
      l.start();
      observer.granted(t.epoch, t.sessionId);
    }
    l.watchEpoch();
    l.recheckTimeout(); // The session may have reconnected since the multi's timing was taken.
  }

  /** CAMPAIGNING → FAILED; returns whether it failed (false when already past campaigning). */
  boolean fail(LeaseException e) {
    synchronized (this) {
      if (phase != Phase.CAMPAIGNING) {
        return false;
      }
      phase = Phase.FAILED;
      events.execute(() -> listener.failed(e));
    }
    LOG.error("lease {} cannot campaign: {}", leasePath, e.getMessage());
    return true;
  }

  /** Ends term {@code t} if it is still current; returns whether it did. */
  boolean revoke(Term t, RevocationReason reason, String detail) {
    return revoke(t, reason, detail, () -> { });
  }

  /**
   * Ends term {@code t} if it is still current, and runs {@code atOnce} right after, before the
   * observers log and count: a release's multi, which a waiting contender is waiting for (G5).
   * {@code atOnce} must not block: it runs under the lock.
   */
  boolean revoke(Term t, RevocationReason reason, String detail, Runnable atOnce) {
    synchronized (this) {
      if (term != t || phase != Phase.HOLDING) {
        return false;
      }
      phase = Phase.REVOKED;
      lastReason = reason;
      liveness.stop();
      // The holder must stop by the deadline (G2): tell it first, then log and count.
      events.execute(() -> listener.revoked(t.epoch, reason));
      atOnce.run();
      observer.revoked(t.epoch, t.sessionId, reason, detail);
    }
    return true;
  }

  void revokeCurrent(RevocationReason reason, String detail) {
    Term t = holding();
    if (t != null) {
      revoke(t, reason, detail);
    }
  }

  /** The term held now, or null. */
  synchronized Term holding() {
    return phase == Phase.HOLDING ? term : null;
  }

  /** The current term if it is {@code epoch} and its deadline has not passed; refuses locally otherwise. */
  Fence.Held held(Epoch epoch) throws LeaseException.NotLeader {
    Fence.Held h;
    synchronized (this) {
      if (phase != Phase.HOLDING || !term.epoch.equals(epoch)) {
        throw new LeaseException.NotLeader("not holding " + leasePath + " with epoch " + epoch
            + " (phase " + phase + (term == null ? "" : ", epoch " + term.epoch) + ")");
      }
      h = new Fence.Held(term, liveness);
    }
    if (h.liveness().expired(clock.nanoTime())) {
      revoke(h.term(), RevocationReason.GRACE_EXPIRED, "deadline passed before a fenced write");
      throw new LeaseException.NotLeader("the grace of epoch " + epoch + " has run out");
    }
    return h;
  }

  /** Curator's view of the connection, for the liveness of the term held now. */
  void connectionState(ConnectionState state) {
    Term t;
    Liveness l;
    synchronized (this) {
      t = phase == Phase.HOLDING ? term : null;
      l = liveness;
    }
    LOG.info("ZooKeeper connection {}{}", state, t == null ? "" : " while holding epoch " + t.epoch);
    if (t != null) {
      l.connectionState(state);
    }
  }

  synchronized LeaseState state() {
    long now = clock.nanoTime();
    Liveness l = liveness;
    Duration left = phase == Phase.HOLDING ? Duration.ofNanos(Math.max(0, l.deadline() - now))
        : Duration.ZERO;
    return new LeaseState(phase, Optional.ofNullable(lastEpoch), left,
        l == null ? null : Duration.ofNanos(now - l.lastAck()), l == null ? 0 : l.lastAck(),
        term == null ? 0 : term.sessionId, phase == Phase.HOLDING ? l.timing() : timing,
        Optional.ofNullable(lastReason));
  }

  /**
   * First step of close(): false when already CLOSED. A lease not holding becomes CLOSED at once,
   * so that an acquisition still in flight grants nothing (closing the session removes its
   * ephemeral leader node) and no listener ever hears granted without revoked.
   */
  synchronized boolean closing() {
    if (phase == Phase.CLOSED) {
      return false;
    }
    if (phase != Phase.HOLDING) {
      phase = Phase.CLOSED;
    }
    return true;
  }

  /** Last step of close(): nothing runs or reports after it. */
  void closed() {
    synchronized (this) {
      phase = Phase.CLOSED;
      if (liveness != null) {
        liveness.stop();
      }
    }
    events.shutdown();
  }
}
