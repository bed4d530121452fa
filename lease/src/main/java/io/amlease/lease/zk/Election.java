package io.amlease.lease.zk;

import io.amlease.lease.Clock;
import io.amlease.lease.Epoch;
import io.amlease.lease.LeaderInfo;
import io.amlease.lease.LeaseConfig;
import io.amlease.lease.LeaseConfigException;
import io.amlease.lease.LeaseException;
import io.amlease.lease.LeaseObserver;
import io.amlease.lease.LeaseTiming;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.leader.LeaderLatch;
import org.apache.curator.framework.recipes.leader.LeaderLatchListener;
import org.apache.curator.framework.recipes.leader.Participant;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns latch leadership into a term (DESIGN.md §3, Acquire): Curator's {@link LeaderLatch} orders
 * the contenders, and one multi bumps the epoch (whose new version is the fencing token) and
 * replaces the leader info, checked against our latch node and, for a contender with a generation,
 * against {@code <lease>/generation} (G6). A failed attempt is retried with backoff while the latch
 * says leader. Acquisition runs on this election's own worker thread.
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
  private final LeaseAcl acl;
  private final LeaseNodes nodes;
  private final GenerationGuard generation;
  private final Clock clock;
  private final java.time.Clock wall;
  private final LeaseObserver observer;
  private final Owner owner;
  private final RetryBackoff backoff = new RetryBackoff();
  private final EpochHint hint;
  private final ExecutorService worker;
  private volatile LeaderLatch latch;

  Election(LeaseConfig config, LeasePaths paths, LeaseAcl acl, LeaseNodes nodes,
      GenerationGuard generation, Clock clock, java.time.Clock wall, LeaseObserver observer,
      Owner owner) {
    this.config = config;
    this.paths = paths;
    this.acl = acl;
    this.nodes = nodes;
    this.generation = generation;
    this.clock = clock;
    this.wall = wall;
    this.observer = observer;
    this.owner = owner;
    this.hint = new EpochHint(paths, owner.campaigning());
    this.worker = Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, "amlease-lease-" + config.holderId());
      t.setDaemon(true);
      return t;
    });
  }

  /** Joins the election. Only queues the latch's work on Curator's threads: no ZooKeeper call. */
  void start(CuratorFramework client) throws Exception {
    LeaderLatch l = new LeaderLatch(client, paths.latch(), config.holderId(),
        LeaderLatch.CloseMode.SILENT);
    l.addListener(new LeaderLatchListener() {
      @Override
      public void isLeader() {
        worker.execute(Election.this::acquire);
      }

      @Override
      public void notLeader() {
        owner.latchLost().run();
      }
    });
    latch = l;
    l.start();
    hint.watch(client.getZookeeperClient().getZooKeeper());
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

  private void acquire() {
    if (!owner.campaigning().getAsBoolean()) {
      return;
    }
    LeaderLatch l = latch;
    String ours = l.getOurPath();
    if (!l.hasLeadership() || ours == null) {
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
      // G2 for this session: after an expiry Curator opens a new one, whose negotiated timeout
      // (another server, a changed maxSessionTimeout) may not fit the grace checked at start.
      LeaseTiming timing = config.timingFor(Duration.ofMillis(zk.getSessionTimeout()),
          "negotiated by the server for session 0x" + Long.toHexString(session));
      EpochHint.Seen seen = hint.take();
      if (seen != null) {
        try {
          acquire(zk, ours, session, timing, seen.value(), seen.version(), null);
          return;
        } catch (KeeperException e) {
          if (!staleHint(e)) {
            throw e;
          }
        }
      }
      Stat epochStat = new Stat();
      long current = nodes.readEpoch(zk, epochStat);
      acquire(zk, ours, session, timing, current, epochStat.getVersion(),
          zk.exists(paths.leader(), false));
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

  /**
   * One acquiring multi: bumps the epoch from {@code current} at {@code epochVersion} and makes our
   * leader info, replacing {@code leaderStat}'s node if there is one; grants on success.
   */
  private void acquire(ZooKeeper zk, String ours, long session, LeaseTiming timing, long current,
      int epochVersion, Stat leaderStat) throws Exception {
    long next = current + 1;
    LeaderInfo info = LeaderInfo.of(next, config.holderId(), config.details(), session,
        wall.instant().toString());
    List<Op> ops = new ArrayList<>();
    // Our latch node still existing means we are still the lowest sequence number: leader.
    ops.add(Op.check(ours, -1));
    ops.add(Op.setData(paths.epoch(), LeaseNodes.bytes(next), epochVersion));
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
    // handle never changes its session).
    if (zk.getSessionId() != session) {
      throw new IllegalStateException("the acquiring multi ran on session 0x"
          + Long.toHexString(zk.getSessionId()) + ", not 0x" + Long.toHexString(session));
    }
    int token = ((OpResult.SetDataResult) results.get(1)).getStat().getVersion();
    backoff.reset();
    owner.grant().granted(new Term(new Epoch(next, token), session, ours, info), sent, timing);
  }

  /** A multi built on a hint failed because the hint was stale: the epoch moved, or a leader node is left. */
  private static boolean staleHint(KeeperException e) {
    int failed = Multis.failedOp(e);
    return (failed == 1 && e.code() == Code.BADVERSION) || (failed == 2 && e.code() == Code.NODEEXISTS);
  }

  private void retry(String why) {
    Duration delay = backoff.failed();
    observer.acquisitionRetried(why, delay, backoff.failures());
    clock.schedule(() -> worker.execute(this::acquire), delay);
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
    LeaderLatch l = latch;
    return l == null ? null : l.getOurPath();
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
    worker.shutdownNow();
  }
}
