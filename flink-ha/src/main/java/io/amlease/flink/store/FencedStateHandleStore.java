package io.amlease.flink.store;

import io.amlease.flink.leader.Codes;
import io.amlease.flink.leader.LeaderTerm;
import io.amlease.lease.LeaseException;
import io.amlease.lease.zk.ZkClients;
import java.io.IOException;
import java.io.Serializable;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.utils.ZKPaths;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.runtime.persistence.IntegerResourceVersion;
import org.apache.flink.runtime.persistence.PossibleInconsistentStateException;
import org.apache.flink.runtime.persistence.RetrievableStateStorageHelper;
import org.apache.flink.runtime.persistence.StateHandleStore;
import org.apache.flink.runtime.state.RetrievableStateHandle;
import org.apache.flink.util.InstantiationUtil;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Flink's pointers to its state (completed checkpoints, execution plans, applications) in
 * ZooKeeper, written only within one leadership term: every add, replace and remove is one
 * {@code multi(check(<lease>/epoch, token), …)}, so a JobManager that no longer leads, even one
 * that was paused and does not know it yet, cannot add, replace or remove a pointer once a newer
 * JobManager leads (G3). A store is bound to the term that was current when Flink created it, for a
 * new leader session; created without one, it refuses every write.
 *
 * <p>Unlike Flink's ZooKeeper store there are no lock nodes: they protect state that another
 * JobManager still uses from being removed, and here no other JobManager can remove anything.
 * Removal deletes the pointer first and discards the state after, so a refused removal never
 * leaves a pointer to discarded state.
 */
public final class FencedStateHandleStore<T extends Serializable>
    implements StateHandleStore<T, IntegerResourceVersion> {
  private static final Logger LOG = LoggerFactory.getLogger(FencedStateHandleStore.class);
  private static final Duration SYNC_WITHIN = Duration.ofSeconds(15);

  private final CuratorFramework client;
  private final String dir;
  private final RetrievableStateStorageHelper<T> storage;
  private final Optional<LeaderTerm> term;

  /**
   * @param client for reads; writes go through the term's own session
   * @param dir the ZooKeeper directory of this store's pointers (created on the first add)
   * @param term the term the store writes in; empty: every write is refused
   */
  public FencedStateHandleStore(CuratorFramework client, String dir,
      RetrievableStateStorageHelper<T> storage, Optional<LeaderTerm> term) {
    this.client = client;
    this.dir = dir;
    this.storage = storage;
    this.term = term;
  }

  private String path(String name) {
    String n = name.startsWith("/") ? name.substring(1) : name;
    if (n.isEmpty() || n.contains("/")) {
      throw new IllegalArgumentException("a state handle name is one path element: '" + name
          + "'");
    }
    return ZKPaths.makePath(dir, n);
  }

  private LeaderTerm term() throws LeaseException.NotLeader {
    return term.orElseThrow(() -> new LeaseException.NotLeader(
        "this JobManager did not lead when the store for " + dir + " was created"));
  }

  @Override
  public RetrievableStateHandle<T> addAndLock(String name, T state) throws Exception {
    String path = path(name);
    LeaderTerm t = term();
    if (client.checkExists().forPath(path) != null) {
      throw new AlreadyExistException("ZooKeeper node " + path + " already exists.");
    }
    ensureDir(t);
    RetrievableStateHandle<T> handle = storage.store(state);
    boolean discard = true;
    try {
      t.write(List.of(Op.create(path, InstantiationUtil.serializeObject(handle), t.acl(),
          CreateMode.PERSISTENT)));
      discard = false;
      return handle;
    } catch (LeaseException e) {
      Code code = Codes.of(e);
      if (code == Code.NODEEXISTS) {
        throw new AlreadyExistException("ZooKeeper node " + path + " already exists.", e);
      }
      if (Codes.outcomeUnknown(e)) {
        discard = false; // The pointer may exist: its state must stay.
        throw new PossibleInconsistentStateException(e);
      }
      throw e;
    } finally {
      if (discard) {
        handle.discardState();
      }
    }
  }

  @Override
  public void replace(String name, IntegerResourceVersion version, T state) throws Exception {
    String path = path(name);
    LeaderTerm t = term();
    RetrievableStateHandle<T> old = get(path);
    RetrievableStateHandle<T> handle = storage.store(state);
    boolean replaced = false;
    boolean discardNew = true;
    try {
      t.write(List.of(Op.setData(path, InstantiationUtil.serializeObject(handle),
          version.getValue())));
      replaced = true;
      discardNew = false;
    } catch (LeaseException e) {
      Code code = Codes.of(e);
      if (code == Code.NONODE) {
        throw new NotExistException("ZooKeeper node " + path + " does not exist.", e);
      }
      if (Codes.outcomeUnknown(e)) {
        discardNew = false;
        throw new PossibleInconsistentStateException(e);
      }
      throw e;
    } finally {
      if (replaced) {
        old.discardState();
      }
      if (discardNew) {
        handle.discardState();
      }
    }
  }

  @Override
  public IntegerResourceVersion exists(String name) throws Exception {
    Stat stat = client.checkExists().forPath(path(name));
    return stat == null ? IntegerResourceVersion.notExisting()
        : IntegerResourceVersion.valueOf(stat.getVersion());
  }

  @Override
  public RetrievableStateHandle<T> getAndLock(String name) throws Exception {
    sync();
    return get(path(name));
  }

  private RetrievableStateHandle<T> get(String path) throws Exception {
    byte[] data;
    try {
      data = client.getData().forPath(path);
    } catch (KeeperException.NoNodeException e) {
      throw new NotExistException("ZooKeeper node " + path + " does not exist.", e);
    }
    try {
      return InstantiationUtil.deserializeObject(data, Thread.currentThread()
          .getContextClassLoader());
    } catch (IOException | ClassNotFoundException e) {
      throw new IOException("Failed to deserialize state handle from ZooKeeper data from " + path
          + '.', e);
    }
  }

  /**
   * Every pointer, read after a sync: a new leader reads on a session of its own, which may sit on
   * a server that has not yet applied the last leader's writes.
   */
  @Override
  public List<Tuple2<RetrievableStateHandle<T>, String>> getAllAndLock() throws Exception {
    sync();
    while (true) {
      Stat before = client.checkExists().forPath(dir);
      if (before == null) {
        return new ArrayList<>(); // Mutable: Flink sorts what it gets.
      }
      List<Tuple2<RetrievableStateHandle<T>, String>> all = new ArrayList<>();
      for (String child : client.getChildren().forPath(dir)) {
        try {
          all.add(Tuple2.of(get(ZKPaths.makePath(dir, child)), "/" + child));
        } catch (NotExistException gone) {
          // Removed while listing: the children's version below tells.
        } catch (IOException corrupt) {
          LOG.warn("ignoring {}: {}", ZKPaths.makePath(dir, child), corrupt.toString());
        }
      }
      Stat after = client.checkExists().forPath(dir);
      if (after != null && after.getCversion() == before.getCversion()) {
        return all;
      }
    }
  }

  @Override
  public Collection<String> getAllHandles() throws Exception {
    sync();
    try {
      return client.getChildren().forPath(dir);
    } catch (KeeperException.NoNodeException e) {
      return new ArrayList<>();
    }
  }

  /**
   * Deletes the pointer, fenced, then discards its state. False, and the state kept, when this
   * JobManager's term has ended: the pointer is the new leader's to keep or remove.
   */
  @Override
  public boolean releaseAndTryRemove(String name) throws Exception {
    String path = path(name);
    RetrievableStateHandle<T> handle = null;
    try {
      handle = get(path);
    } catch (NotExistException e) {
      return true;
    } catch (IOException corrupt) {
      LOG.warn("removing {} without discarding its state: {}", path, corrupt.toString());
    }
    try {
      term().write(List.of(Op.delete(path, -1)));
    } catch (LeaseException.NotLeader | LeaseException.Fenced e) {
      LOG.info("{} kept: {}", path, e.getMessage());
      return false;
    } catch (LeaseException e) {
      if (Codes.of(e) != Code.NONODE) {
        throw e;
      }
    }
    if (handle != null) {
      handle.discardState();
    }
    return true;
  }

  /** Deletes every pointer, fenced; their state stays (Flink's own store does the same). */
  @Override
  public void clearEntries() throws Exception {
    LeaderTerm t = term();
    for (String child : getAllHandles()) {
      try {
        t.write(List.of(Op.delete(ZKPaths.makePath(dir, child), -1)));
      } catch (LeaseException e) {
        if (Codes.of(e) != Code.NONODE) {
          throw e;
        }
      }
    }
  }

  /** No locks: nothing to release. */
  @Override
  public void release(String name) {}

  @Override
  public void releaseAll() {}

  /** The directory, created without the fence: an empty node holds no pointer. */
  private void ensureDir(LeaderTerm t) throws Exception {
    try {
      client.create().creatingParentsIfNeeded().withACL(t.acl()).forPath(dir);
    } catch (KeeperException.NodeExistsException e) {
      // Made by an earlier leader.
    }
  }

  private void sync() throws Exception {
    ZkClients.sync(client.getZookeeperClient().getZooKeeper(), dir, SYNC_WITHIN);
  }

  @Override
  public String toString() {
    return "FencedStateHandleStore{" + dir + ", " + term.map(t -> "epoch " + t.epoch().value())
        .orElse("no term") + "}";
  }
}
