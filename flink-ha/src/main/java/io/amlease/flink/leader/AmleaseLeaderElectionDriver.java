package io.amlease.flink.leader;

import io.amlease.lease.Epoch;
import io.amlease.lease.LeaseConfig;
import io.amlease.lease.LeaseConfigException;
import io.amlease.lease.LeaseException;
import io.amlease.lease.LeaseListener;
import io.amlease.lease.RevocationReason;
import io.amlease.lease.zk.ZkLease;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.cache.ChildData;
import org.apache.curator.framework.recipes.cache.CuratorCache;
import org.apache.curator.framework.recipes.cache.CuratorCacheListener;
import org.apache.flink.runtime.leaderelection.LeaderElectionDriver;
import org.apache.flink.runtime.leaderelection.LeaderInformation;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.Op;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Flink leader election on an amlease lease: one lease per JobManager process. A granted term is
 * {@link Listener#onGrantLeadership}, with a leader session id that carries the epoch; every end
 * of a term (grace run out, superseded, fenced, session lost, released) is
 * {@link Listener#onRevokeLeadership}, called by the lease as it stops accepting fenced writes, so
 * no later than the lease's deadline (DESIGN.md G2), and never for a mere ZooKeeper blip shorter
 * than the grace (G1). Flink stops its leader asynchronously after that call, so the driver keeps
 * its place in the election for the lease's stop-timeout before it leaves and campaigns again: a
 * standby cannot lead before then, whether the session lives (the latch node stays) or expires
 * (G2 counts the stop-timeout).
 *
 * <p>Leader information is written only as fenced writes ({@code multi(check(epoch), …)}), so a
 * JobManager that has been superseded, even one that was paused and does not know it yet, cannot
 * overwrite or delete the newer leader's information (G3). Changes to it are reported to the
 * listener while this driver leads, as Flink's ZooKeeper driver does, so Flink rewrites what it
 * confirmed.
 */
public final class AmleaseLeaderElectionDriver implements LeaderElectionDriver {
  private static final Logger LOG = LoggerFactory.getLogger(AmleaseLeaderElectionDriver.class);
  /** Before campaigning again after ZooKeeper could not be reached. */
  private static final Duration RETRY = Duration.ofSeconds(1);
  /** Between attempts of a fenced write that lost its connection, while the term lasts. */
  private static final Duration WRITE_RETRY = Duration.ofMillis(50);

  private final LeaseConfig config;
  private final ComponentPaths paths;
  private final CuratorFramework client;
  private final Listener listener;
  private final ExecutorService campaigner;
  private final ExecutorService events;
  private final CuratorCache cache;
  private final Object lock = new Object();
  private final LeaderTerms terms;
  private ZkLease lease; // guarded by lock
  private volatile boolean closed;

  /**
   * Starts campaigning at once (in the background: the first lease connects on the driver's own
   * thread).
   *
   * @param client a started client authenticated as the lease's owner, for the leader information
   * @param terms where the term held is published for the stores
   */
  public AmleaseLeaderElectionDriver(LeaseConfig config, CuratorFramework client,
      LeaderTerms terms, Listener listener) {
    this.config = config;
    this.terms = terms;
    this.paths = new ComponentPaths(config.leasePath());
    this.client = client;
    this.listener = listener;
    this.campaigner = Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, "amlease-flink-campaign-" + config.holderId());
      t.setDaemon(true);
      return t;
    });
    // Flink answers a change by publishing, a fenced write that may wait out a lost connection:
    // on Curator's own thread it would hold up every other cache and watch of the client.
    this.events = Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, "amlease-flink-info-" + config.holderId());
      t.setDaemon(true);
      return t;
    });
    this.cache = CuratorCache.build(client, paths.components());
    cache.listenable().addListener(CuratorCacheListener.builder()
        .forCreatesAndChanges((before, after) -> changed(after))
        .forDeletes(this::deleted)
        .build(), events);
    cache.start();
    campaigner.execute(this::campaign);
  }

  /**
   * Starts a new lease; tries again while ZooKeeper cannot be reached or the connection fails
   * during the start. Anything else (bad data, access denied, a session timeout that breaks G2) is
   * Flink's to handle, as an error.
   */
  private void campaign() {
    while (!closed) {
      Term term = new Term();
      ZkLease l = ZkLease.create(config, term);
      term.lease = l;
      synchronized (lock) {
        if (closed) {
          l.close();
          return;
        }
        lease = l;
      }
      try {
        l.start();
        return;
      } catch (LeaseException e) {
        l.close();
        if (!Codes.transientFailure(e)) {
          error(e);
          return;
        }
        LOG.warn("amlease HA: cannot campaign for {} yet ({}); trying again in {}",
            config.leasePath(), e.getMessage(), RETRY);
        if (!sleep(RETRY)) {
          return;
        }
      } catch (RuntimeException e) { // LeaseConfigException, or a bug: never end silently.
        l.close();
        error(e);
        return;
      }
    }
  }

  private void error(Throwable e) {
    if (!closed) {
      listener.onError(e);
    }
  }

  /** One lease's edges; the lease calls them on its event thread, granted before revoked. */
  private final class Term implements LeaseListener {
    /** Set before the lease starts, so before any edge. */
    volatile ZkLease lease;
    private volatile LeaderTerm held;

    @Override
    public void granted(Epoch epoch) {
      if (closed) {
        return;
      }
      held = new LeaderTerm(lease, epoch);
      terms.granted(held);
      LOG.info("amlease HA: {} leads {} in epoch {}", config.holderId(), config.leasePath(),
          epoch.value());
      listener.onGrantLeadership(LeaderSessionIds.of(epoch));
    }

    @Override
    public void revoked(Epoch epoch, RevocationReason reason) {
      LeaderTerm h = held;
      if (h != null) {
        terms.ended(h);
      }
      if (closed) {
        return;
      }
      LOG.warn("amlease HA: {} no longer leads {} (epoch {}, {})", config.holderId(),
          config.leasePath(), epoch.value(), reason);
      listener.onRevokeLeadership();
      ZkLease ended = lease;
      synchronized (lock) {
        if (!closed) { // close() shuts the campaigner down, and closes this lease itself.
          campaigner.execute(() -> {
            // Flink revokes asynchronously: its JobMaster goes on suspending after the call
            // returns. While the session lives, the latch held keeps a standby out until then,
            // as a runner keeps it until its child is gone (the stop-timeout counted in G2).
            if (sleep(config.stopTimeout())) {
              ended.close();
              campaign();
            }
          });
        }
      }
    }

    @Override
    public void failed(LeaseException cause) {
      error(cause);
    }
  }

  @Override
  public boolean hasLeadership() {
    return !closed && terms.current().map(LeaderTerm::lasts).orElse(false);
  }

  /**
   * Publishes {@code info} for the term it was confirmed in: its leader session id names the
   * epoch, and information of an earlier term (Flink handles a revocation after the next grant
   * may already be held) is not written under a newer term's fence.
   */
  @Override
  public void publishLeaderInformation(String componentId, LeaderInformation info) {
    LeaderTerm h = terms.current().orElse(null);
    if (h == null || closed) {
      LOG.debug("not leading: leader information of {} not published", componentId);
      return;
    }
    if (!info.isEmpty()
        && LeaderSessionIds.epochOf(info.getLeaderSessionID()) != h.epoch().value()) {
      LOG.info("amlease HA: leader information of {} for session {} not published: the term "
          + "now held is epoch {}", componentId, info.getLeaderSessionID(), h.epoch().value());
      return;
    }
    try {
      write(h, componentId, ConnectionInfo.bytes(info));
    } catch (LeaseException e) {
      failedWhileLeading(h, "publishing the leader information of " + componentId, e);
    }
  }

  /**
   * A write of term {@code h} failed: an error for Flink only while the term lasts; once it has
   * ended, the revocation is Flink's news, and on its way.
   */
  private void failedWhileLeading(LeaderTerm h, String what, LeaseException e) {
    if (e instanceof LeaseException.NotLeader || e instanceof LeaseException.Fenced
        || !h.lasts()) {
      LOG.info("amlease HA: {} refused, the term of epoch {} has ended: {}", what,
          h.epoch().value(), e.getMessage());
    } else {
      error(e);
    }
  }

  /**
   * Sets, or creates, the component's node, fenced by the term's epoch; tries again after a lost
   * connection while the term lasts (its deadline ends the loop).
   */
  private void write(LeaderTerm h, String componentId, byte[] data) throws LeaseException {
    String path = paths.connectionInfo(componentId);
    while (true) {
      try {
        h.write(List.of(Op.setData(path, data, -1)));
        return;
      } catch (LeaseException e) {
        if (Codes.of(e) != Code.NONODE) {
          retryOrThrow(h, e);
          continue;
        }
      }
      createParent(paths.component(componentId));
      try {
        h.write(List.of(Op.create(path, data, h.acl(), CreateMode.PERSISTENT)));
        return;
      } catch (LeaseException e) {
        if (Codes.of(e) != Code.NODEEXISTS) {
          retryOrThrow(h, e);
        }
      }
    }
  }

  private static void retryOrThrow(LeaderTerm h, LeaseException e) throws LeaseException {
    if (Codes.of(e) != Code.CONNECTIONLOSS || !h.lasts()) {
      throw e;
    }
    sleep(WRITE_RETRY);
  }

  /** An empty parent node, not fenced: it carries nothing, and a leader's write fills it. */
  private void createParent(String path) throws LeaseException {
    try {
      client.create().creatingParentsIfNeeded().forPath(path);
    } catch (KeeperException.NodeExistsException e) {
      // Made by an earlier leader, or by us a moment ago.
    } catch (Exception e) {
      throw new LeaseException("cannot create " + path + ": " + e, e);
    }
  }

  @Override
  public void deleteLeaderInformation(String componentId) {
    LeaderTerm h = terms.current().orElse(null);
    if (h == null || closed) {
      LOG.debug("not leading: leader information of {} left to the leader", componentId);
      return;
    }
    try {
      for (String path : List.of(paths.connectionInfo(componentId),
          paths.component(componentId))) {
        try {
          h.write(List.of(Op.delete(path, -1)));
        } catch (LeaseException e) {
          if (Codes.of(e) != Code.NONODE) {
            throw e;
          }
        }
      }
    } catch (LeaseException e) {
      failedWhileLeading(h, "deleting the leader information of " + componentId, e);
    }
  }

  private void changed(ChildData data) {
    String componentId = paths.componentOf(data.getPath());
    if (componentId != null && hasLeadership()) {
      listener.onLeaderInformationChange(componentId, ConnectionInfo.parse(data.getData()));
    }
  }

  private void deleted(ChildData data) {
    String componentId = paths.componentOf(data.getPath());
    if (componentId != null && hasLeadership()) {
      listener.onLeaderInformationChange(componentId, LeaderInformation.empty());
    }
  }

  private static boolean sleep(Duration d) {
    try {
      Thread.sleep(d.toMillis());
      return true;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  /** Leaves the election: releases a term held (a waiting JobManager takes over at once). */
  @Override
  public void close() {
    ZkLease l;
    synchronized (lock) {
      if (closed) {
        return;
      }
      closed = true;
      l = lease;
    }
    terms.current().filter(t -> t.lease() == l).ifPresent(terms::ended);
    cache.close();
    events.shutdownNow();
    campaigner.shutdownNow();
    if (l != null) {
      l.close();
    }
    try {
      campaigner.awaitTermination(config.connectionTimeout().toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public String toString() {
    return "AmleaseLeaderElectionDriver{lease=" + config.leasePath() + ", holder="
        + config.holderId() + "}";
  }
}
