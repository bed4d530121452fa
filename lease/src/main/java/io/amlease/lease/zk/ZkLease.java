package io.amlease.lease.zk;

import io.amlease.lease.Clock;
import io.amlease.lease.Epoch;
import io.amlease.lease.LeaderDetails;
import io.amlease.lease.Lease;
import io.amlease.lease.LeaseConfig;
import io.amlease.lease.LeaseConfigException;
import io.amlease.lease.LeaseException;
import io.amlease.lease.LeaseListener;
import io.amlease.lease.LeaseObserver;
import io.amlease.lease.LeaseState;
import io.amlease.lease.LeaseStats;
import io.amlease.lease.LeaseTiming;
import io.amlease.lease.RevocationReason;
import io.amlease.lease.SystemClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.ACL;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The ZooKeeper lease (DESIGN.md §2–§3): its lifecycle, and the public face of its parts, each its
 * own type: {@link Terms} is the state machine of the lease's terms and reports their edges,
 * {@link Election} turns latch leadership into a {@link Term}, {@link Liveness} keeps the term's
 * {@code lastAck} and ends it at the deadline ({@link CampaignRenewal} keeps the session renewed
 * before it), {@link Fence} guards writes with the epoch,
 * {@link LeaseNodes} creates and checks the nodes, and observers ({@link LeaseLog},
 * {@link EventLog}, {@link LeaseStats}, the caller's own) log and count.
 *
 * <p>Threads: the first attempt after the latch says leader sends its multi from the latch's
 * callback (ZooKeeper's event thread, under the latch's own monitor; asynchronously) and is granted
 * on that thread; every other attempt runs on the election's worker. The clock's timer thread runs
 * renewals and the watchdog; an event thread runs listener callbacks. Observers are told under the
 * lock of {@link Terms}, on whichever of these threads made the change, so they must not block. No
 * blocking ZooKeeper call is made under a lock.
 */
public final class ZkLease implements Lease {
  private static final Logger LOG = LoggerFactory.getLogger(ZkLease.class);

  private final LeaseConfig config;
  private final Clock clock;
  private final SystemClock ownedClock;
  private final LeaseStats stats;
  private final LeaseObserver observer;
  private final LeasePaths paths;
  private final LeaseAcl acl;
  private final LeaseNodes nodes;
  private final Terms terms;
  private final Election election;
  private final Fence fence;
  private final CampaignRenewal campaignRenewal;

  private volatile CuratorFramework client;

  private ZkLease(LeaseConfig config, LeaseListener listener, Clock clock, LeaseObserver extra) {
    java.time.Clock wall = java.time.Clock.systemUTC();
    this.config = config;
    this.ownedClock = clock == null ? new SystemClock("amlease-timer-" + config.holderId()) : null;
    this.clock = clock == null ? ownedClock : clock;
    this.stats = new LeaseStats(wall);
    List<LeaseObserver> observers = new ArrayList<>(List.of(
        new LeaseLog(config.leasePath(), this.clock), new EventLog(config.leasePath(),
            config.holderId()), stats));
    if (extra != null) {
      observers.add(extra);
    }
    this.observer = new Observers(observers);
    this.paths = new LeasePaths(config.leasePath());
    this.acl = new LeaseAcl(paths, config);
    this.nodes = new LeaseNodes(paths, acl);
    this.terms = new Terms(config.leasePath(), config.holderId(), listener, observer, this.clock,
        config.requestedTiming());
    GenerationGuard generation = config.generation().isPresent()
        ? new GenerationGuard(paths, acl, config.generation().getAsLong()) : null;
    this.election = new Election(config, paths, nodes, generation,
        new AcquiringMulti(config, paths, acl, generation, wall), this.clock, observer,
        new Election.Owner(terms::campaigning, this::zk, this::granted, this::fail,
            () -> terms.revokeCurrent(RevocationReason.LATCH_LOST, "the leader latch lost leadership")));
    this.fence = new Fence(paths, observer, this.clock,
        new Fence.Owner(terms::held, this::zk, terms::revoke));
    this.campaignRenewal = new CampaignRenewal(paths, this.clock, terms::campaigning,
        timeout -> config.timingFor(timeout, "negotiated by the server"), this::zk);
  }

  /** A lease on the system clock. */
  public static ZkLease create(LeaseConfig config, LeaseListener listener) {
    return new ZkLease(config, listener, null, null);
  }

  /** A lease on the system clock that also reports to {@code observer} (your metrics). */
  public static ZkLease create(LeaseConfig config, LeaseListener listener, LeaseObserver observer) {
    return new ZkLease(config, listener, null, observer);
  }

  /** A lease on an injected clock (tests). {@code acquiredAt} in leader info still uses wall time. */
  public static ZkLease create(LeaseConfig config, LeaseListener listener, Clock clock) {
    return new ZkLease(config, listener, clock, null);
  }

  @Override
  public void start() throws LeaseException {
    terms.starting();
    CuratorFramework c = null;
    try {
      c = LeaseSession.connect(config, acl);
      CuratorFramework connected = c;
      // A close that races start must not leave a session (and later a latch node) behind it.
      terms.whileCampaigning(() -> client = connected);
      LeaseTiming negotiated = LeaseSession.negotiated(config, c);
      terms.timing(negotiated);
      watchSaslLogins(c);
      nodes.prepare(c);
      election.registerGeneration(zk()); // Outdated at once if a newer generation campaigns
      c.getConnectionStateListenable().addListener((cl, st) -> terms.connectionState(st));
      terms.whileCampaigning(() -> {
        election.start(connected);
        campaignRenewal.start(negotiated.renewInterval());
      });
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
   * A later session (after an expiry) logs in again; if that login fails the session goes on
   * unauthenticated, and a campaign on it would stall on NoAuth. ZooKeeper tells of a failed
   * login, in the client or refused by the server, with an AuthFailed event: the lease fails then.
   * (A held term needs no help: its renewals fail and grace ends it.)
   */
  private void watchSaslLogins(CuratorFramework c) {
    if (config.saslPrincipal().isEmpty()) {
      return;
    }
    c.getCuratorListenable().addListener((cl, event) -> {
      if (event.getType() == org.apache.curator.framework.api.CuratorEventType.WATCHED
          && event.getWatchedEvent() != null && event.getWatchedEvent().getState()
              == org.apache.zookeeper.Watcher.Event.KeeperState.AuthFailed) {
        fail(acl.loginRefused(null));
      }
    });
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
    Liveness l = new Liveness(t, sentNanos, clock, sessionTiming,
        timeout -> config.timingFor(timeout, "renegotiated by the server on a reconnect"), paths,
        observer, this::zk, (reason, detail) -> terms.revoke(t, reason, detail));
    terms.granted(t, l, sessionTiming);
  }

  private void fail(LeaseException e) {
    if (terms.fail(e)) {
      // As the latch's leader, a failed contender would hold up the next one until it is closed.
      election.leave();
    }
  }

  @Override
  public void revoke(RevocationReason reason) {
    terms.revokeCurrent(reason, "requested by the holder");
  }

  @Override
  public List<OpResult> fencedWrite(Epoch epoch, List<Op> ops) throws LeaseException {
    return fence.write(epoch, ops);
  }

  @Override
  public List<Op> guard(Epoch epoch) throws LeaseException.NotLeader {
    return fence.guard(epoch);
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
    Term t = terms.holding();
    List<CompletableFuture<Code>> sent = new ArrayList<>(1);
    if (t != null && terms.revoke(t, RevocationReason.RELEASED, "clean release",
        () -> sent.add(fence.sendRelease(t)))) {
      Fence.awaitRelease(sent.get(0), timeout);
    }
  }

  @Override
  public LeaseStats.Snapshot stats() {
    return stats.snapshot();
  }

  @Override
  public LeaseState state() {
    return terms.state();
  }

  @Override
  public void close() {
    if (!terms.closing()) {
      return;
    }
    release(Duration.ofSeconds(5));
    terms.closed();
    // Read after CLOSED: a start() still connecting sees CLOSED and closes what it made itself.
    CuratorFramework c = client;
    campaignRenewal.stop();
    election.close();
    if (c != null) {
      LeaseSession.close(c);
    }
    if (ownedClock != null) {
      ownedClock.close();
    }
  }

  /**
   * The ZooKeeper session of the term held now, for a process that ends it on this holder's behalf
   * once this holder and everything it ran are dead ({@code hold}'s reaper); empty when not
   * holding, or when the client has moved to another session.
   */
  public Optional<TermSession> termSession() {
    Term t = terms.holding();
    if (t == null) {
      return Optional.empty();
    }
    try {
      ZooKeeper zk = zk();
      return zk.getSessionId() == t.sessionId
          ? Optional.of(new TermSession(config.connectString(), t.sessionId, zk.getSessionPasswd()))
          : Optional.empty();
    } catch (Exception e) {
      return Optional.empty();
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
