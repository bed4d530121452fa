package io.amlease.lease.zk;

import io.amlease.lease.Clock;
import io.amlease.lease.Durations;
import io.amlease.lease.Epoch;
import io.amlease.lease.LeaderDetails;
import io.amlease.lease.LeaderInfo;
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
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.leader.LeaderLatch;
import org.apache.curator.framework.recipes.leader.LeaderLatchListener;
import org.apache.curator.framework.recipes.leader.Participant;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The ZooKeeper lease (DESIGN.md §2–§3). Curator's {@link LeaderLatch} orders the contenders; the
 * epoch node turns latch leadership into a fencing token; our own renewal loop and watchdog decide
 * when to stop, from {@code lastAck}, whatever Curator's connection state says.
 *
 * <p>Threads: a worker runs acquisition and cleanup; the clock's timer thread runs renewals and the
 * watchdog; an event thread runs listener callbacks, queued under the lock together with the state
 * change they report, so that a term's {@code granted} always precedes its {@code revoked}. State is
 * guarded by {@code this}; no ZooKeeper call is made while holding the lock.
 */
public final class ZkLease implements Lease {
  private static final Logger LOG = LoggerFactory.getLogger(ZkLease.class);
  private static final Duration CLOSE_WAIT = Duration.ofSeconds(2);

  private final LeaseConfig config;
  private final LeaseListener listener;
  private final Clock clock;
  private final SystemClock ownedClock;
  private final java.time.Clock wall;
  private final LeaseStats stats = new LeaseStats();
  private final EventLog eventLog;
  private final LeasePaths paths;
  private final LeaseAcl acl;
  private final LeaseNodes nodes;
  private final GenerationGuard generation;
  private final RetryBackoff backoff = new RetryBackoff();
  private final ExecutorService worker;
  private final ExecutorService events;

  private volatile CuratorFramework client;
  private volatile LeaderLatch latch;
  private volatile LeaseTiming timing;

  // Guarded by this.
  private Phase phase = Phase.LATENT;
  private Term term;
  private Epoch lastEpoch;
  private RevocationReason lastReason;
  private Clock.Timer renewTimer;
  private Clock.Timer watchdogTimer;

  private ZkLease(LeaseConfig config, LeaseListener listener, Clock clock, java.time.Clock wall) {
    this.config = config;
    this.listener = listener;
    this.ownedClock = clock == null ? new SystemClock("amlease-timer-" + config.holderId()) : null;
    this.clock = clock == null ? ownedClock : clock;
    this.wall = wall;
    this.eventLog = new EventLog(config.leasePath(), config.holderId());
    this.paths = new LeasePaths(config.leasePath());
    this.acl = new LeaseAcl(paths, config.aclCredentials());
    this.nodes = new LeaseNodes(paths, acl);
    this.generation = config.generation().isPresent()
        ? new GenerationGuard(paths, acl, config.generation().getAsLong()) : null;
    this.timing = config.requestedTiming();
    this.worker = Executors.newSingleThreadExecutor(daemon("amlease-lease-" + config.holderId()));
    this.events = Executors.newSingleThreadExecutor(daemon("amlease-events-" + config.holderId()));
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
      c = ZkClients.connect(config.connectString(), config.sessionTimeout(),
          config.connectionTimeout(), acl,
          acl.credentials().map(cr -> List.of(LeaseAcl.authInfo(cr))).orElse(List.of()));
      adopt(c);
      ZooKeeper zk = c.getZookeeperClient().getZooKeeper();
      Duration negotiated = Duration.ofMillis(zk.getSessionTimeout());
      timing = config.timingFor(negotiated, "negotiated by the server");
      LOG.info("connected to {} (session 0x{}); session timeout {} requested, {} negotiated; grace {}, "
              + "renew every {}", config.connectString(), Long.toHexString(zk.getSessionId()),
          Durations.format(config.sessionTimeout()), Durations.format(negotiated),
          Durations.format(timing.grace()), Durations.format(timing.renewInterval()));
      nodes.prepare(c);
      if (generation != null) {
        generation.register(zk);
      }
      c.getConnectionStateListenable().addListener((cl, st) -> onConnectionState(st));
      startLatch(c);
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

  private void startLatch(CuratorFramework c) throws Exception {
    LeaderLatch l = new LeaderLatch(c, paths.latch(), config.holderId(), LeaderLatch.CloseMode.SILENT);
    l.addListener(new LeaderLatchListener() {
      @Override
      public void isLeader() {
        worker.execute(ZkLease.this::acquire);
      }

      @Override
      public void notLeader() {
        revokeCurrent(RevocationReason.LATCH_LOST, "the leader latch lost leadership");
      }
    });
    synchronized (this) {
      if (phase != Phase.CAMPAIGNING) {
        throw new LeaseException("lease " + config.leasePath() + " was closed while starting");
      }
      latch = l;
      // start() only queues the latch's work on Curator's threads: no ZooKeeper call under the lock.
      l.start();
    }
  }

  /** Closes everything, including a client that close() could not see yet. */
  private void closeAfterFailedStart(CuratorFramework c) {
    close();
    if (c != null) {
      closeClient(c);
    }
  }

  private void acquire() {
    synchronized (this) {
      if (phase != Phase.CAMPAIGNING) {
        return;
      }
    }
    LeaderLatch l = latch;
    String ours = l.getOurPath();
    if (!l.hasLeadership() || ours == null) {
      return;
    }
    try {
      ZooKeeper zk = zk();
      long session = zk.getSessionId();
      if (session == 0 || zk.getSessionTimeout() <= 0) {
        // A handle Curator made after an expiry, not connected yet: nothing to judge G2 by.
        retryAcquire("the new ZooKeeper session is not established yet");
        return;
      }
      if (generation != null) {
        // Again at each attempt: it re-creates the node if an operator deleted it, and refuses
        // (Outdated) once a newer generation has raised it.
        generation.register(zk);
      }
      // G2 for this session: after an expiry Curator opens a new one, whose negotiated timeout
      // (another server, a changed maxSessionTimeout) may not fit the grace checked at start.
      LeaseTiming sessionTiming = config.timingFor(Duration.ofMillis(zk.getSessionTimeout()),
          "negotiated by the server for session 0x" + Long.toHexString(session));
      Stat epochStat = new Stat();
      long current = nodes.readEpoch(zk, epochStat);
      Stat leaderStat = zk.exists(paths.leader(), false);
      long next = current + 1;
      LeaderInfo info = LeaderInfo.of(next, config.holderId(), config.details(), session,
          wall.instant().toString());
      List<Op> ops = new ArrayList<>();
      // Our latch node still existing means we are still the lowest sequence number: leader.
      ops.add(Op.check(ours, -1));
      ops.add(Op.setData(paths.epoch(), LeaseNodes.bytes(next), epochStat.getVersion()));
      if (leaderStat != null) {
        ops.add(Op.delete(paths.leader(), leaderStat.getVersion()));
      }
      ops.add(Op.create(paths.leader(), info.toJson(), acl.leaseAcl(), CreateMode.EPHEMERAL));
      if (generation != null) {
        ops.add(generation.check()); // Last: a failure there means a newer generation (G6).
      }
      long sent = clock.nanoTime();
      List<OpResult> results = zk.multi(ops);
      // The term's session is the one the multi ran on: read from the same handle after it (a
      // handle never changes its session; 0 would mean it never had one).
      if (zk.getSessionId() != session || session == 0) {
        throw new IllegalStateException("the acquiring multi ran on session 0x"
            + Long.toHexString(zk.getSessionId()) + ", not 0x" + Long.toHexString(session));
      }
      int token = ((OpResult.SetDataResult) results.get(1)).getStat().getVersion();
      timing = sessionTiming;
      backoff.reset();
      granted(new Term(new Epoch(next, token), session, ours, info, sessionTiming.grace(), sent));
    } catch (KeeperException e) {
      if (e.code() == Code.NOAUTH) {
        fail(nodes.accessDenied(paths.root(), null));
      } else if (failedOp(e) == 0) {
        LOG.info("latch node {} is gone; waiting for the latch", ours);
      } else if (generation != null && failedOp(e) == ops(e) - 1 && e.code() == Code.BADVERSION) {
        fail(generation.outdated(-1));
      } else {
        retryAcquire("acquisition lost a race or the connection (" + e.code()
            + (e.getPath() == null ? "" : " on " + e.getPath()) + ")");
      }
    } catch (LeaseException e) {
      fail(e);
    } catch (LeaseConfigException e) {
      fail(new LeaseException(e.getMessage(), e));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (Exception e) {
      retryAcquire("acquisition failed: " + e);
    }
  }

  private void retryAcquire(String why) {
    Duration delay = backoff.failed();
    if (backoff.shouldLog(clock.nanoTime())) {
      LOG.info("{}; retrying in {} while the latch says leader ({} failures in a row; the next "
          + "ones are logged at most every {})", why, Durations.format(delay), backoff.failures(),
          Durations.format(RetryBackoff.LOG_EVERY));
    } else {
      LOG.debug("{}; retrying in {}", why, Durations.format(delay));
    }
    stats.acquisitionRetried();
    clock.schedule(() -> worker.execute(this::acquire), delay);
  }

  private void granted(Term t) {
    synchronized (this) {
      if (phase != Phase.CAMPAIGNING) {
        // Closed while acquiring: closing the session removes our ephemeral leader node.
        return;
      }
      // Counted before HOLDING is visible, so that no status report shows a holder with no
      // acquisition (HoldStatusTest caught one).
      stats.acquired();
      phase = Phase.HOLDING;
      term = t;
      lastEpoch = t.epoch;
      renewTimer = clock.schedule(() -> renew(t), timing.renewInterval());
      scheduleWatchdog(t);
      // Queued under the lock: a revocation can only queue its edge after this one (edges in order).
      events.execute(() -> listener.granted(t.epoch));
    }
    LOG.info("granted {} epoch {} (session 0x{})", config.leasePath(), t.epoch,
        Long.toHexString(t.sessionId));
    eventLog.granted(t.epoch, t.sessionId);
    watchEpoch(t);
  }

  /**
   * Supersession shows as a change of {@code <lease>/epoch}: a one-shot watch reports it without a
   * read per renewal (the renewal is a {@code sync}, which returns no stat). The watch is answered
   * from the connected server's state, which may lag; that only delays detection, never safety:
   * fencing (G3) and the deadline (G2) do not depend on it.
   */
  private void watchEpoch(Term t) {
    ZooKeeper zk;
    try {
      zk = zk();
    } catch (Exception e) {
      return; // Armed by the next renewal (Term#epochWatched).
    }
    // The revocation runs on the clock's timer thread, with the renewals and the watchdog: the
    // holder's own decisions share one thread, and a process pause (a frozen clock in tests) holds
    // them all alike.
    Watcher onChange = event -> {
      if (event.getType() == Watcher.Event.EventType.NodeDataChanged
          || event.getType() == Watcher.Event.EventType.NodeDeleted) {
        clock.schedule(() -> revoke(t, RevocationReason.SUPERSEDED, paths.epoch() + " changed ("
            + event.getType() + "); our token is " + t.epoch.token()), Duration.ZERO);
      }
    };
    zk.exists(paths.epoch(), onChange, (rc, path, ctx, stat) -> {
      Code code = Code.get(rc);
      if (code == Code.OK && stat.getVersion() == t.epoch.token()) {
        // Set: a watch outlives reconnects of the session, so it stays until it fires.
        t.epochWatched(true);
      } else if (code == Code.OK || code == Code.NONODE) {
        clock.schedule(() -> revoke(t, RevocationReason.SUPERSEDED, paths.epoch() + " is at "
            + "version " + (stat == null ? "none" : stat.getVersion()) + ", our token is "
            + t.epoch.token()), Duration.ZERO);
      }
    }, null);
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
    // Leave the election at once: as its leader, a failed contender would hold up the next one
    // until its owner closes it.
    try {
      LeaderLatch l = latch;
      if (l != null) {
        l.close();
      }
    } catch (Exception ex) {
      LOG.debug("closing the latch of a failed lease: {}", ex.toString());
    }
  }

  private void renew(Term t) {
    synchronized (this) {
      if (term != t || phase != Phase.HOLDING) {
        return;
      }
      renewTimer = clock.schedule(() -> renew(t), timing.renewInterval());
    }
    sendRenewal(t);
  }

  /**
   * One {@code sync} on the epoch node: proves the session alive through the quorum leader (G2).
   * A follower answers a sync only after the leader has answered it, so a follower cut off from the
   * leader cannot acknowledge renewals from its own stale state, as it could a read: it keeps
   * answering reads for up to syncLimit × tickTime after losing the leader. Supersession is
   * reported by the epoch watch ({@link #watchEpoch}).
   */
  private void sendRenewal(Term t) {
    ZooKeeper zk;
    try {
      zk = zk();
    } catch (Exception e) {
      LOG.debug("renewal skipped: {}", e.toString());
      stats.renewalFailed();
      eventLog.renewalFailed(t.epoch, t.sessionId, "not sent: " + e);
      return;
    }
    if (zk.getSessionId() != t.sessionId) {
      revoke(t, RevocationReason.SESSION_LOST, "the client is on session 0x"
          + Long.toHexString(zk.getSessionId()) + ", the term's session was 0x"
          + Long.toHexString(t.sessionId));
      return;
    }
    if (!t.epochWatched()) {
      // The watch could not be set at the grant (a blip): without it nothing would see a newer
      // epoch while the session lives, so try again with every renewal until it is set.
      watchEpoch(t);
    }
    long sent = clock.nanoTime();
    zk.sync(paths.epoch(), (rc, path, ctx) -> {
      Code code = Code.get(rc);
      if (code == Code.OK) {
        t.ack(sent);
        stats.renewed(Duration.ofNanos(clock.nanoTime() - sent));
      } else if (code == Code.SESSIONEXPIRED) {
        revoke(t, RevocationReason.SESSION_LOST, "renewal: session expired");
      } else {
        LOG.debug("renewal failed: {}", code);
        stats.renewalFailed();
        eventLog.renewalFailed(t.epoch, t.sessionId, "answered " + code);
      }
    }, null);
  }

  private void scheduleWatchdog(Term t) {
    Duration delay = Duration.ofNanos(t.deadline() - clock.nanoTime());
    watchdogTimer = clock.schedule(() -> watchdog(t), delay);
  }

  private void watchdog(Term t) {
    synchronized (this) {
      if (term != t || phase != Phase.HOLDING) {
        return;
      }
      if (!t.expired(clock.nanoTime())) {
        scheduleWatchdog(t);
        return;
      }
    }
    revoke(t, RevocationReason.GRACE_EXPIRED, "no answer from ZooKeeper for "
        + Durations.format(timing.grace()) + " since the last acknowledged request");
  }

  private void onConnectionState(ConnectionState state) {
    Term t;
    synchronized (this) {
      t = phase == Phase.HOLDING ? term : null;
    }
    LOG.info("ZooKeeper connection {}{}", state, t == null ? "" : " while holding epoch " + t.epoch);
    if (t == null) {
      return;
    }
    if (state == ConnectionState.LOST) {
      revoke(t, RevocationReason.SESSION_LOST, "Curator reported the session lost");
    } else if (state == ConnectionState.RECONNECTED) {
      // Renew at once: a reconnect is the earliest moment lastAck can move again.
      sendRenewal(t);
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
      cancelTimers();
      // The holder must stop by the deadline (G2): tell it first, then log and count. Under the
      // lock, so that it follows this term's granted edge (edges in order).
      events.execute(() -> listener.revoked(t.epoch, reason));
    }
    if (reason == RevocationReason.RELEASED) {
      LOG.info("released {} epoch {}", config.leasePath(), t.epoch);
    } else {
      LOG.warn("revoked {} epoch {}: {} ({})", config.leasePath(), t.epoch, reason, detail);
    }
    stats.revoked(new LeaseStats.Revocation(wall.instant(), t.epoch.value(), reason, detail));
    eventLog.revoked(t.epoch, t.sessionId, reason, detail);
    return true;
  }

  private void cancelTimers() {
    if (renewTimer != null) {
      renewTimer.cancel();
    }
    if (watchdogTimer != null) {
      watchdogTimer.cancel();
    }
  }

  @Override
  public void revoke(RevocationReason reason) {
    revokeCurrent(reason, "requested by the holder");
  }

  @Override
  public List<OpResult> fencedWrite(Epoch epoch, List<Op> ops) throws LeaseException {
    Term t = currentTerm(epoch);
    List<Op> all = new ArrayList<>(ops.size() + 1);
    all.add(Op.check(paths.epoch(), t.epoch.token()));
    all.addAll(ops);
    long sent = clock.nanoTime();
    try {
      ZooKeeper zk = zk();
      if (zk.getSessionId() != t.sessionId) {
        revoke(t, RevocationReason.SESSION_LOST, "fenced write: the client is on another session");
        throw new LeaseException.NotLeader("the session of epoch " + epoch + " is gone");
      }
      List<OpResult> results = zk.multi(all);
      stats.fencedWrite(false);
      if (zk.getSessionId() == t.sessionId) {
        t.ack(sent);
      }
      return results.subList(1, results.size());
    } catch (KeeperException e) {
      if (failedOp(e) == 0) {
        revoke(t, RevocationReason.FENCED, "fenced write refused: " + paths.epoch()
            + " is no longer at our token " + t.epoch.token());
        stats.fencedWrite(true);
        eventLog.fenced(t.epoch, t.sessionId, paths.epoch() + " is no longer at our token "
            + t.epoch.token());
        throw new LeaseException.Fenced("epoch " + t.epoch.value() + " was superseded; write refused"
            + " by ZooKeeper", e);
      }
      if (e.code() == Code.SESSIONEXPIRED) {
        revoke(t, RevocationReason.SESSION_LOST, "fenced write: session expired");
      }
      throw new LeaseException("fenced write failed: " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new LeaseException("interrupted during fenced write", e);
    } catch (Exception e) {
      throw new LeaseException("fenced write failed: " + e, e);
    }
  }

  /** The current term if it is {@code epoch} and its deadline has not passed; refuses locally otherwise. */
  private Term currentTerm(Epoch epoch) throws LeaseException.NotLeader {
    Term t;
    synchronized (this) {
      t = term;
      if (phase != Phase.HOLDING || t == null || !t.epoch.equals(epoch)) {
        throw new LeaseException.NotLeader("not holding " + config.leasePath() + " with epoch "
            + epoch + " (phase " + phase + (t == null ? "" : ", epoch " + t.epoch) + ")");
      }
    }
    if (t.expired(clock.nanoTime())) {
      revoke(t, RevocationReason.GRACE_EXPIRED, "deadline passed before a fenced write");
      throw new LeaseException.NotLeader("the grace of epoch " + epoch + " has run out");
    }
    return t;
  }

  @Override
  public void updateDetails(Epoch epoch, LeaderDetails details) throws LeaseException {
    Term t = currentTerm(epoch);
    LeaderInfo old = t.info();
    LeaderInfo updated = new LeaderInfo(old.epoch(), old.holder(), details.host(), details.port(),
        details.urls(), details.applicationId(), details.attemptId(), details.containerId(),
        old.sessionId(), old.acquiredAt());
    fencedWrite(epoch, List.of(Op.setData(paths.leader(), updated.toJson(), -1)));
    t.info(updated);
  }

  @Override
  public List<ACL> acl() {
    return acl.leaseAcl();
  }

  @Override
  public List<String> participants() throws LeaseException {
    LeaderLatch l = latch;
    if (l == null) {
      return List.of();
    }
    try {
      return l.getParticipants().stream().map(Participant::getId).toList();
    } catch (Exception e) {
      throw new LeaseException("cannot list participants of " + paths.latch() + ": " + e, e);
    }
  }

  @Override
  public void release(Duration timeout) {
    Term t;
    synchronized (this) {
      t = phase == Phase.HOLDING ? term : null;
    }
    if (t == null || !revoke(t, RevocationReason.RELEASED, "clean release")) {
      return;
    }
    List<Op> ops = List.of(Op.check(paths.epoch(), t.epoch.token()), Op.delete(paths.leader(), -1),
        Op.delete(t.latchPath, -1));
    CompletableFuture<Code> done = new CompletableFuture<>();
    try {
      zk().multi(ops, (rc, path, ctx, results) -> done.complete(Code.get(rc)), null);
      Code code = done.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
      if (code != Code.OK) {
        LOG.info("release multi answered {}; closing the session removes what is ours", code);
      }
    } catch (Exception e) {
      LOG.info("release did not complete ({}); closing the session removes what is ours", e.toString());
    }
  }

  @Override
  public LeaseStats.Snapshot stats() {
    return stats.snapshot();
  }

  @Override
  public synchronized LeaseState state() {
    long now = clock.nanoTime();
    Term t = term;
    Duration left = phase == Phase.HOLDING ? Duration.ofNanos(Math.max(0, t.deadline() - now))
        : Duration.ZERO;
    return new LeaseState(phase, Optional.ofNullable(lastEpoch), left,
        t == null ? null : Duration.ofNanos(now - t.lastAck()), t == null ? 0 : t.lastAck(),
        t == null ? 0 : t.sessionId, timing, Optional.ofNullable(lastReason));
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
    LeaderLatch l;
    CuratorFramework c;
    synchronized (this) {
      phase = Phase.CLOSED;
      cancelTimers();
      // Read under the lock: a start() still connecting sees CLOSED and closes what it made itself.
      l = latch;
      c = client;
    }
    try {
      if (l != null) {
        l.close();
      }
    } catch (Exception e) {
      LOG.debug("closing latch: {}", e.toString());
    }
    if (c != null) {
      closeClient(c);
    }
    worker.shutdownNow();
    events.shutdown();
    if (ownedClock != null) {
      ownedClock.close();
    }
  }

  /**
   * Closes the session, waiting at most {@link #CLOSE_WAIT}: a holder that has already stopped
   * acting must not wait for a silent link (see {@link ZkClients#closeWithin}).
   */
  private static void closeClient(CuratorFramework c) {
    if (!ZkClients.closeWithin(c::close, CLOSE_WAIT, "amlease-close")) {
      LOG.info("ZooKeeper session close still pending after {}; not waiting for it",
          Durations.format(CLOSE_WAIT));
    }
  }

  /** This holder's latch node (tests delete it to simulate a holder ZooKeeper has dropped). */
  String latchPathForTest() {
    return latch.getOurPath();
  }

  /** The current ZooKeeper handle (tests find the server it is connected to). */
  ZooKeeper zooKeeper() throws Exception {
    return zk();
  }

  private ZooKeeper zk() throws Exception {
    return client.getZookeeperClient().getZooKeeper();
  }

  /** How many ops the failed multi had, or -1 when the failure was not per-op. */
  private static int ops(KeeperException e) {
    return e.getResults() == null ? -1 : e.getResults().size();
  }

  /** Index of the op that failed in a multi, or -1 when the failure was not per-op. */
  private static int failedOp(KeeperException e) {
    List<OpResult> results = e.getResults();
    if (results == null) {
      return -1;
    }
    for (int i = 0; i < results.size(); i++) {
      if (results.get(i) instanceof OpResult.ErrorResult err
          && err.getErr() != Code.OK.intValue()
          && err.getErr() != Code.RUNTIMEINCONSISTENCY.intValue()) {
        return i;
      }
    }
    return -1;
  }

  private static java.util.concurrent.ThreadFactory daemon(String name) {
    return r -> {
      Thread t = new Thread(r, name);
      t.setDaemon(true);
      return t;
    };
  }
}
