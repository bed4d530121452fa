package io.amlease.lease.zk;

import io.amlease.lease.Clock;
import io.amlease.lease.LeaseConfig;
import io.amlease.lease.LeaseConfigException;
import io.amlease.lease.LeaseException;
import io.amlease.lease.LeaseObserver;
import io.amlease.lease.LeaseTiming;
import java.time.Duration;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.leader.LeaderLatch;
import org.apache.curator.framework.recipes.leader.LeaderLatchListener;
import org.apache.curator.framework.recipes.leader.Participant;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns latch leadership into a term (DESIGN.md §3, Acquire): Curator's {@link LeaderLatch} orders
 * the contenders, and one multi bumps the epoch (whose new version is the fencing token) and
 * replaces the leader info, checked against our latch node and, for a contender with a generation,
 * against {@code <lease>/generation} (G6) ({@link AcquiringMulti}). A failed attempt is retried
 * with backoff while the latch says leader. One attempt runs at a time ({@link Attempts}): the
 * first from the latch's callback, or earlier from the {@link Predecessor}'s watch once it deduces
 * that our latch node is the lowest, when it needs no read; every other on the election's worker.
 */
final class Election implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ZkLease.class);

  /** Called when the acquiring multi, sent at {@code sentNanos} on the term's session, succeeded. */
  interface Grant {
    void granted(Term term, long sentNanos, LeaseTiming timing);
  }

  /** What the election needs from its lease. */
  record Owner(BooleanSupplier campaigning, ZkSource zk, Grant grant,
      Consumer<LeaseException> failed, Runnable latchLost) {}

  private final LeaseConfig config;
  private final LeasePaths paths;
  private final LeaseNodes nodes;
  private final GenerationGuard generation;
  private final Clock clock;
  private final LeaseObserver observer;
  private final Owner owner;
  private final RetryBackoff backoff = new RetryBackoff();
  private final EpochHint hint;
  private final AcquiringMulti multi;
  private final Attempts attempts;
  private final PendingRetry pendingRetry;
  private final Predecessor predecessor;
  private volatile LeaderLatch latch;

  Election(LeaseConfig config, LeasePaths paths, LeaseNodes nodes, GenerationGuard generation,
      AcquiringMulti multi, Clock clock, LeaseObserver observer, Owner owner) {
    this.config = config;
    this.paths = paths;
    this.nodes = nodes;
    this.generation = generation;
    this.clock = clock;
    this.observer = observer;
    this.owner = owner;
    this.hint = new EpochHint(paths, owner.campaigning());
    this.multi = multi;
    this.attempts = new Attempts("amlease-lease-" + config.holderId(), this::acquire);
    this.pendingRetry = new PendingRetry(clock, () -> attempts.request(null));
    this.predecessor = new Predecessor(paths.latch(), this::latchPath, owner.campaigning(),
        owner.zk(), clock, ours -> attempts.request(() -> sendFast(ours)));
  }

  /** Joins the election. Only queues the latch's work on Curator's threads: no ZooKeeper call. */
  void start(CuratorFramework client) throws Exception {
    LeaderLatch l = new LeaderLatch(client, paths.latch(), config.holderId(),
        LeaderLatch.CloseMode.SILENT);
    l.addListener(new LeaderLatchListener() {
      @Override
      public void isLeader() {
        attempts.request(() -> sendFast(leaderNode()));
      }

      @Override
      public void notLeader() {
        owner.latchLost().run();
      }
    });
    latch = l;
    l.start();
    hint.watch(client.getZookeeperClient().getZooKeeper());
    predecessor.arm();
  }

  /**
   * The first attempt once {@code ours} is the lowest latch node (G5): as the latch says leader, or
   * as soon as the {@link Predecessor} deduces it. Sent from that callback: with the epoch hint it
   * needs no read, so it costs the acquiring multi's round trip and no thread hop. Asynchronous: the
   * callback thread never waits. False when it cannot be tried here; any failure hands over to the
   * worker's full attempt, which waits for the latch, reads the epoch again and reports errors.
   */
  private boolean sendFast(String ours) {
    if (ours == null || generation != null || !owner.campaigning().getAsBoolean()
        || !ours.equals(latchPath())) {
      return false;
    }
    try {
      ZooKeeper zk = owner.zk().get();
      long session = zk.getSessionId();
      String incarnation = nodes.knownIncarnation();
      EpochHint.Seen seen = session == 0 || zk.getSessionTimeout() <= 0 || incarnation == null
          ? null : hint.take();
      if (seen == null) {
        return false;
      }
      LeaseTiming timing = multi.timing(zk, session);
      AcquiringMulti.Attempt a = multi.attempt(ours, session, seen.value(), seen.version(),
          incarnation, null);
      long sent = clock.nanoTime();
      zk.multi(a.ops(), (rc, path, ctx, results) -> {
        if (Code.get(rc) != Code.OK || zk.getSessionId() != session) {
          attempts.fastFailed();
          return;
        }
        try {
          granted(a, results, sent, timing);
        } finally {
          attempts.ended();
        }
      }, null);
      return true;
    } catch (Exception e) {
      return false;
    }
  }

  /**
   * Raises {@code <lease>/generation} to ours, if this contender has a generation: before joining,
   * so that a newer generation is refused at once; acquire() raises and checks it again.
   *
   * @throws LeaseException.Outdated when a newer generation campaigns already
   */
  void registerGeneration(ZooKeeper zk) throws Exception {
    if (generation != null) {
      generation.register(zk);
    }
  }

  /** Our latch node while we campaign and the latch says leader; null otherwise. */
  private String leaderNode() {
    LeaderLatch l = latch;
    String ours = l.getOurPath();
    return owner.campaigning().getAsBoolean() && l.hasLeadership() ? ours : null;
  }

  private void acquire() {
    String ours = leaderNode();
    if (ours == null) {
      return;
    }
    try {
      ZooKeeper zk = owner.zk().get();
      long session = zk.getSessionId();
      if (session == 0 || zk.getSessionTimeout() <= 0) {
        // A handle Curator made after an expiry, not connected yet: nothing to judge G2 by.
        retry("the new ZooKeeper session is not established yet");
        return;
      }
      if (generation != null) {
        // Again at each attempt: it re-creates the node if an operator deleted it, and refuses
        // (Outdated) once a newer generation has raised it.
        generation.register(zk);
      }
      LeaseTiming timing = multi.timing(zk, session);
      EpochHint.Seen seen = hint.take();
      String known = nodes.knownIncarnation();
      if (seen != null && known != null) {
        try {
          acquire(zk, multi.attempt(ours, session, seen.value(), seen.version(), known, null),
              timing);
          return;
        } catch (KeeperException e) {
          if (!AcquiringMulti.staleHint(e)) {
            throw e;
          }
        }
      }
      Stat epochStat = new Stat();
      long current = nodes.readEpoch(zk, epochStat);
      String incarnation = nodes.incarnation(zk, epochStat);
      acquire(zk, multi.attempt(ours, session, current, epochStat.getVersion(), incarnation,
          zk.exists(paths.leader(), false)), timing);
    } catch (KeeperException e) {
      int failed = Multis.failedOp(e);
      if (e.code() == Code.NOAUTH) {
        owner.failed().accept(nodes.accessDenied(paths.root(), null));
      } else if (failed == 0) {
        LOG.info("latch node {} is gone; waiting for the latch", ours);
      } else if (generation != null && failed == Multis.size(e) - 1
          && e.code() == Code.BADVERSION) {
        owner.failed().accept(generation.outdated(-1));
      } else {
        retry("acquisition lost a race or the connection (" + e.code()
            + (e.getPath() == null ? "" : " on " + e.getPath()) + ")");
      }
    } catch (LeaseException e) {
      owner.failed().accept(e);
    } catch (LeaseConfigException e) {
      owner.failed().accept(new LeaseException(e.getMessage(), e));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (Exception e) {
      retry("acquisition failed: " + e);
    }
  }

  /** Sends attempt {@code a} and waits for it; grants on success. */
  private void acquire(ZooKeeper zk, AcquiringMulti.Attempt a, LeaseTiming timing) throws Exception {
    long sent = clock.nanoTime();
    List<OpResult> results = zk.multi(a.ops());
    // The term's session is the one the multi ran on: read from the same handle after it (a
    // handle never changes its session).
    if (zk.getSessionId() != a.session()) {
      throw new IllegalStateException("the acquiring multi ran on session 0x"
          + Long.toHexString(zk.getSessionId()) + ", not 0x" + Long.toHexString(a.session()));
    }
    granted(a, results, sent, timing);
  }

  private void granted(AcquiringMulti.Attempt a, List<OpResult> results, long sent,
      LeaseTiming timing) {
    backoff.reset();
    pendingRetry.cancel();
    owner.grant().granted(a.term(results), sent, timing);
  }

  private void retry(String why) {
    Duration delay = pendingRetry.arm(backoff::failed);
    if (delay == null) {
      LOG.debug("{}; the pending retry covers it", why);
      return;
    }
    observer.acquisitionRetried(why, delay, backoff.failures());
  }

  /** Participant ids, the leader first. */
  List<String> participants() throws LeaseException {
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

  /** Our latch node, or null before it exists. */
  String latchPath() {
    return latch == null ? null : latch.getOurPath();
  }

  /** Leaves the election: our latch node goes, so the next contender need not wait for us. */
  void leave() {
    try {
      LeaderLatch l = latch;
      if (l != null) {
        l.close();
      }
    } catch (Exception e) {
      LOG.debug("leaving the election: {}", e.toString());
    }
  }

  @Override
  public void close() {
    leave();
    pendingRetry.close();
    attempts.close();
  }
}
