package io.amlease.am.master;

import io.amlease.am.WorkerCountNodes;
import io.amlease.lease.Epoch;
import io.amlease.lease.Lease;
import io.amlease.lease.LeaseException;
import io.amlease.lease.zk.ZkClients;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The application's worker count while this attempt leads ({@link WorkerCountNodes}): on the grant
 * the count the leaders applied before (or the submitted one, the first time), then every count
 * {@code amlease flex} asks for, applied with a fenced write before it is acted on, so that a
 * superseded attempt can neither record nor act on one. Reads and writes block, so they run on
 * this class's own thread, one at a time, and the counts go to the AM's event loop.
 *
 * <p>It reads on a ZooKeeper session of its own, after a {@code sync}, so that it sees what the
 * previous leader wrote on any server.
 */
final class WorkerCount implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(WorkerCount.class);
  private static final Duration RETRY = Duration.ofSeconds(1);
  /**
   * A reader's session holds no ephemeral node, so nothing waits on its end: connected, a close
   * takes milliseconds; on a silent link it is left to expire.
   */
  private static final Duration CLOSE_WAIT = Duration.ofMillis(500);

  /** Told the count epoch {@code epoch} runs, on the count's thread, once per change. */
  interface Target {
    void target(Epoch epoch, int workers);
  }

  private final Lease lease;
  private final String connect;
  private final Duration connectionTimeout;
  private final String applied;
  private final String requested;
  private final int submitted;
  private final boolean hasWorkerCommand;
  private final Target onTarget;
  private final ScheduledExecutorService executor = Executors.newSingleThreadScheduledExecutor(r -> {
    Thread t = new Thread(r, "amlease-worker-count");
    t.setDaemon(true);
    return t;
  });
  /** On any change of the request node, our own removal included: each look sets it again. */
  private final Watcher onRequest = event -> {
    if (event.getType() != Watcher.Event.EventType.None) {
      schedule(Duration.ZERO);
    }
  };
  // Set only on the executor's thread; volatile for close(), which must not miss one being made.
  private volatile CuratorFramework zk;
  private Epoch reportedFor;
  private int reported;
  private volatile Epoch leading;

  WorkerCount(Lease lease, String connect, Duration connectionTimeout, String leasePath,
      int submitted, boolean hasWorkerCommand, Target onTarget) {
    this.lease = lease;
    this.connect = connect;
    this.connectionTimeout = connectionTimeout;
    this.applied = WorkerCountNodes.applied(leasePath);
    this.requested = WorkerCountNodes.requested(leasePath);
    this.submitted = submitted;
    this.hasWorkerCommand = hasWorkerCommand;
    this.onTarget = onTarget;
  }

  /** This attempt leads in {@code epoch}: find its count, then follow the requests. */
  void lead(Epoch epoch) {
    leading = epoch;
    schedule(Duration.ZERO);
  }

  private void schedule(Duration delay) {
    try {
      executor.schedule(this::update, delay.toMillis(), TimeUnit.MILLISECONDS);
    } catch (RejectedExecutionException closed) {
      // Closed: the attempt is over.
    }
  }

  private void update() {
    Epoch e = leading;
    if (e == null || !lease.state().holds(e)) {
      return; // The term is over: the next leader reads what this one applied.
    }
    try {
      int n = count(e);
      if (!e.equals(reportedFor) || n != reported) {
        reportedFor = e;
        reported = n;
        onTarget.target(e, n);
      }
    } catch (LeaseException.Fenced | LeaseException.NotLeader over) {
      LOG.info("worker count not applied: {}", over.getMessage()); // The revocation follows.
    } catch (Exception failure) {
      LOG.warn("cannot read or apply the worker count ({}); again in {}", failure.toString(),
          io.amlease.lease.Durations.format(RETRY));
      schedule(RETRY);
    }
  }

  /** The count epoch {@code e} runs: a request applied, else the last count applied. */
  private int count(Epoch e) throws Exception {
    CuratorFramework c = client();
    ZooKeeper z = c.getZookeeperClient().getZooKeeper();
    ZkClients.sync(z, applied, connectionTimeout);
    Stat appliedStat = new Stat();
    int current = submitted;
    try {
      current = WorkerCountNodes.parse(applied,
          c.getData().storingStatIn(appliedStat).forPath(applied));
    } catch (KeeperException.NoNodeException none) {
      appliedStat = null; // No flex applied yet: the submitted count runs.
    } catch (IllegalArgumentException bad) {
      LOG.warn("{}; running the submitted {}", bad.getMessage(), submitted);
    }
    Stat requestStat = c.checkExists().usingWatcher(onRequest).forPath(requested);
    if (requestStat == null) {
      return current;
    }
    byte[] data = c.getData().storingStatIn(requestStat).forPath(requested);
    int asked;
    try {
      asked = WorkerCountNodes.parse(requested, data);
    } catch (IllegalArgumentException bad) {
      LOG.warn("ignoring a flex request: {}", bad.getMessage());
      asked = current;
    }
    if (asked > 0 && !hasWorkerCommand) {
      LOG.warn("ignoring a flex request for {} workers: the application was submitted without "
          + "--worker-command", asked);
      asked = current;
    }
    // One fenced write records the count and removes the request it answers; a request replaced
    // meanwhile fails the delete, and the next update applies the newer one.
    List<Op> ops = new ArrayList<>();
    ops.add(appliedStat == null
        ? Op.create(applied, WorkerCountNodes.bytes(asked), lease.acl(), CreateMode.PERSISTENT)
        : Op.setData(applied, WorkerCountNodes.bytes(asked), appliedStat.getVersion()));
    ops.add(Op.delete(requested, requestStat.getVersion()));
    lease.fencedWrite(e, ops);
    LOG.info("epoch {}: worker count {} (was {}), as asked by amlease flex", e.value(), asked,
        current);
    return asked;
  }

  private CuratorFramework client() throws LeaseException {
    if (zk == null) {
      CuratorFramework c = ZkClients.connectReader(connect, connectionTimeout);
      // A new session loses the watch on the request node: look again.
      c.getConnectionStateListenable().addListener((client, state) -> {
        if (state == ConnectionState.RECONNECTED) {
          schedule(Duration.ZERO);
        }
      });
      zk = c;
      if (executor.isShutdown()) {
        c.close(); // close() ran meanwhile and may have missed it.
        throw new LeaseException.Unavailable("worker count reader closed", null);
      }
    }
    return zk;
  }

  @Override
  public void close() {
    leading = null;
    executor.shutdownNow();
    try {
      executor.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    CuratorFramework c = zk;
    // The AM closes this on its way to exit 75; on a silent link ZooKeeper's close waits until the
    // client gives up on the connection (its read or its reconnect's connect timeout), which would
    // hold that exit, and YARN's next attempt, for seconds.
    if (c != null && !ZkClients.closeWithin(c::close, CLOSE_WAIT, "amlease-worker-count-close")) {
      LOG.info("worker count reader's session close still pending after {}; not waiting for it",
          io.amlease.lease.Durations.format(CLOSE_WAIT));
    }
  }
}
