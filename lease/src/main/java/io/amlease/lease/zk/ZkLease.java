package io.amlease.lease.zk;

import io.amlease.lease.Clock;
import io.amlease.lease.Epoch;
import io.amlease.lease.LeaderDetails;
import io.amlease.lease.Lease;
import io.amlease.lease.LeaseConfig;
import io.amlease.lease.LeaseConfigException;
import io.amlease.lease.LeaseException;
import io.amlease.lease.LeaseListener;
import io.amlease.lease.LeaseState;
import io.amlease.lease.LeaseState.Phase;
import io.amlease.lease.LeaseStats;
import io.amlease.lease.LeaseTiming;
import io.amlease.lease.RevocationReason;
import io.amlease.lease.SystemClock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.ACL;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The ZooKeeper lease (DESIGN.md §2–§3): its lifecycle and the one state machine of its term. The
 * parts are their own types: {@link Election} turns latch leadership into a {@link Term},
 * {@link Liveness} keeps the term's {@code lastAck} and ends it at the deadline, {@link Fence}
 * guards writes with the epoch, {@link LeaseNodes} creates and checks the nodes, and
 * {@link LeaseRecorder} logs and counts.
 *
 * <p>Threads: the election's worker acquires; the clock's timer thread runs renewals and the
 * watchdog; an event thread runs listener callbacks, queued under the lock together with the state
 * change they report, so that a term's {@code granted} always precedes its {@code revoked}. State is
 * guarded by {@code this}; no ZooKeeper call is made while holding the lock.
 */
public final class ZkLease implements Lease {
  private static final Logger LOG = LoggerFactory.getLogger(ZkLease.class);

  private final LeaseConfig config;
  private final LeaseListener listener;
  private final Clock clock;
  private final SystemClock ownedClock;
  private final LeaseStats stats = new LeaseStats();
  private final LeaseRecorder recorder;
  private final LeasePaths paths;
  private final LeaseAcl acl;
  private final LeaseNodes nodes;
  private final Election election;
  private final Fence fence;
  private final ExecutorService events;

  private volatile CuratorFramework client;
  private volatile LeaseTiming timing;

  // Guarded by this.
  private Phase phase = Phase.LATENT;
  private Term term;
  private Liveness liveness;
  private Epoch lastEpoch;
  private RevocationReason lastReason;

  private ZkLease(LeaseConfig config, LeaseListener listener, Clock clock, java.time.Clock wall) {
    this.config = config;
    this.listener = listener;
    this.ownedClock = clock == null ? new SystemClock("amlease-timer-" + config.holderId()) : null;
    this.clock = clock == null ? ownedClock : clock;
    this.recorder = new LeaseRecorder(config.leasePath(), config.holderId(), stats, wall);
    this.paths = new LeasePaths(config.leasePath());
    this.acl = new LeaseAcl(paths, config.aclCredentials());
    this.nodes = new LeaseNodes(paths, acl);
    this.timing = config.requestedTiming();
    GenerationGuard generation = config.generation().isPresent()
        ? new GenerationGuard(paths, acl, config.generation().getAsLong()) : null;
    this.election = new Election(config, paths, acl, nodes, generation, this.clock, wall, recorder,
        new Election.Owner(this::campaigning, this::zk, this::granted, this::fail,
            () -> revokeCurrent(RevocationReason.LATCH_LOST, "the leader latch lost leadership")));
    this.fence = new Fence(paths, recorder, this.clock,
        new Fence.Owner(this::held, this::zk, this::revoke));
    this.events = Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, "amlease-events-" + config.holderId());
      t.setDaemon(true);
      return t;
    });
  }

  /** A lease on the system clock. */
  public static ZkLease create(LeaseConfig config, LeaseListener listener) {
    return new ZkLease(config, listener, null, java.time.Clock.systemUTC());
  }

  /** A lease on an injected clock (tests). {@code acquiredAt} in leader info still uses wall time. */
  public static ZkLease create(LeaseConfig config, LeaseListener listener, Clock clock) {
    return new ZkLease(config, listener, clock, java.time.Clock.systemUTC());
  }

  @Override
  public void start() throws LeaseException {
    synchronized (this) {
      if (phase != Phase.LATENT) {
        throw new IllegalStateException("start() may be called once; phase is " + phase);
      }
      phase = Phase.CAMPAIGNING;
    }
    CuratorFramework c = null;
    try {
      c = LeaseSession.connect(config, acl);
      adopt(c);
      timing = LeaseSession.negotiated(config, c);
      nodes.prepare(c);
      election.registerGeneration(zk()); // Outdated at once if a newer generation campaigns
      c.getConnectionStateListenable().addListener((cl, st) -> onConnectionState(st));
      synchronized (this) {
        if (phase != Phase.CAMPAIGNING) {
          throw new LeaseException("lease " + config.leasePath() + " was closed while starting");
        }
        election.start(c);
      }
      LOG.info("campaigning for {} as {}", config.leasePath(), config.holderId());
    } catch (LeaseException | LeaseConfigException e) {
      closeAfterFailedStart(c);
      throw e;
    } catch (Exception e) {
      closeAfterFailedStart(c);
      throw new LeaseException("cannot start lease " + config.leasePath() + ": " + e, e);
    }
  }

  /**
   * Makes {@code c} the lease's client unless {@link #close()} ran meanwhile: a close that races
   * start must not leave a session (and later a latch node and a term) behind it.
   */
  private void adopt(CuratorFramework c) throws LeaseException {
    synchronized (this) {
      if (phase == Phase.CAMPAIGNING) {
        client = c;
        return;
      }
    }
    throw new LeaseException("lease " + config.leasePath() + " was closed while starting");
  }

  /** Closes everything, including a client that close() could not see yet. */
  private void closeAfterFailedStart(CuratorFramework c) {
    close();
    if (c != null) {
      LeaseSession.close(c);
    }
  }

  private void granted(Term t, long sentNanos, LeaseTiming sessionTiming) {
    // The liveness of term t may end only that term.
    Liveness l = new Liveness(t, sentNanos, clock, sessionTiming, paths, recorder, this::zk,
        (reason, detail) -> revoke(t, reason, detail));
    synchronized (this) {
      if (phase != Phase.CAMPAIGNING) {
        // Closed while acquiring: closing the session removes our ephemeral leader node.
        return;
      }
      recorder.counted();
      timing = sessionTiming;
      phase = Phase.HOLDING;
      term = t;
      liveness = l;
      lastEpoch = t.epoch;
      l.start();
      // Queued under the lock: a revocation can only queue its edge after this one (edges in order).
      events.execute(() -> listener.granted(t.epoch));
    }
    recorder.granted(t);
    l.watchEpoch();
  }

  private synchronized boolean campaigning() {
    return phase == Phase.CAMPAIGNING;
  }

  private void fail(LeaseException e) {
    synchronized (this) {
      if (phase != Phase.CAMPAIGNING) {
        return;
      }
      phase = Phase.FAILED;
      events.execute(() -> listener.failed(e));
    }
    LOG.error("lease {} cannot campaign: {}", config.leasePath(), e.getMessage());
    // As the latch's leader, a failed contender would hold up the next one until it is closed.
    election.leave();
  }

  private void onConnectionState(ConnectionState state) {
    Term t;
    Liveness l;
    synchronized (this) {
      t = phase == Phase.HOLDING ? term : null;
      l = liveness;
    }
    LOG.info("ZooKeeper connection {}{}", state, t == null ? "" : " while holding epoch " + t.epoch);
    if (t == null) {
      return;
    }
    if (state == ConnectionState.LOST) {
      revoke(t, RevocationReason.SESSION_LOST, "Curator reported the session lost");
    } else if (state == ConnectionState.RECONNECTED) {
      l.renewNow();
    }
  }

  private void revokeCurrent(RevocationReason reason, String detail) {
    Term t;
    synchronized (this) {
      t = term;
    }
    if (t != null) {
      revoke(t, reason, detail);
    }
  }

  /** Ends term {@code t} if it is still current; returns whether it did. */
  private boolean revoke(Term t, RevocationReason reason, String detail) {
    synchronized (this) {
      if (term != t || phase != Phase.HOLDING) {
        return false;
      }
      phase = Phase.REVOKED;
      lastReason = reason;
      liveness.stop();
      // The holder must stop by the deadline (G2): tell it first, then log and count. Under the
      // lock, so that it follows this term's granted edge (edges in order).
      events.execute(() -> listener.revoked(t.epoch, reason));
    }
    recorder.revoked(t, reason, detail);
    return true;
  }

  @Override
  public void revoke(RevocationReason reason) {
    revokeCurrent(reason, "requested by the holder");
  }

  @Override
  public List<OpResult> fencedWrite(Epoch epoch, List<Op> ops) throws LeaseException {
    return fence.write(epoch, ops);
  }

  /** The current term if it is {@code epoch} and its deadline has not passed; refuses locally otherwise. */
  private Fence.Held held(Epoch epoch) throws LeaseException.NotLeader {
    Fence.Held h;
    synchronized (this) {
      if (phase != Phase.HOLDING || term == null || !term.epoch.equals(epoch)) {
        throw new LeaseException.NotLeader("not holding " + config.leasePath() + " with epoch "
            + epoch + " (phase " + phase + (term == null ? "" : ", epoch " + term.epoch) + ")");
      }
      h = new Fence.Held(term, liveness);
    }
    if (h.liveness().expired(clock.nanoTime())) {
      revoke(h.term(), RevocationReason.GRACE_EXPIRED, "deadline passed before a fenced write");
      throw new LeaseException.NotLeader("the grace of epoch " + epoch + " has run out");
    }
    return h;
  }

  @Override
  public void updateDetails(Epoch epoch, LeaderDetails details) throws LeaseException {
    fence.updateDetails(epoch, details);
  }

  @Override
  public List<ACL> acl() {
    return acl.leaseAcl();
  }

  @Override
  public List<String> participants() throws LeaseException {
    return election.participants();
  }

  @Override
  public void release(Duration timeout) {
    Term t;
    synchronized (this) {
      t = phase == Phase.HOLDING ? term : null;
    }
    if (t != null && revoke(t, RevocationReason.RELEASED, "clean release")) {
      fence.release(t, timeout);
    }
  }

  @Override
  public LeaseStats.Snapshot stats() {
    return stats.snapshot();
  }

  @Override
  public synchronized LeaseState state() {
    long now = clock.nanoTime();
    Liveness l = liveness;
    Duration left = phase == Phase.HOLDING ? Duration.ofNanos(Math.max(0, l.deadline() - now))
        : Duration.ZERO;
    return new LeaseState(phase, Optional.ofNullable(lastEpoch), left,
        l == null ? null : Duration.ofNanos(now - l.lastAck()), l == null ? 0 : l.lastAck(),
        term == null ? 0 : term.sessionId, timing, Optional.ofNullable(lastReason));
  }

  @Override
  public void close() {
    synchronized (this) {
      if (phase == Phase.CLOSED) {
        return;
      }
      if (phase != Phase.HOLDING) {
        // Closed before any grant: an acquisition still in flight finds CLOSED and grants nothing
        // (closing the session removes its ephemeral leader node), so no listener ever hears
        // granted without revoked.
        phase = Phase.CLOSED;
      }
    }
    release(Duration.ofSeconds(5));
    CuratorFramework c;
    synchronized (this) {
      phase = Phase.CLOSED;
      if (liveness != null) {
        liveness.stop();
      }
      // Read under the lock: a start() still connecting sees CLOSED and closes what it made itself.
      c = client;
    }
    election.close();
    if (c != null) {
      LeaseSession.close(c);
    }
    events.shutdown();
    if (ownedClock != null) {
      ownedClock.close();
    }
  }

  /** This holder's latch node (tests delete it to simulate a holder ZooKeeper has dropped). */
  String latchPathForTest() {
    return election.latchPath();
  }

  /** The current ZooKeeper handle (tests find the server it is connected to). */
  ZooKeeper zooKeeper() throws Exception {
    return zk();
  }

  private ZooKeeper zk() throws Exception {
    return client.getZookeeperClient().getZooKeeper();
  }
}
