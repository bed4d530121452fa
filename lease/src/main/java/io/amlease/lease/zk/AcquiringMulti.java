package io.amlease.lease.zk;

import io.amlease.lease.Epoch;
import io.amlease.lease.LeaderInfo;
import io.amlease.lease.LeaseConfig;
import io.amlease.lease.LeaseTiming;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;

/**
 * The multi that turns latch leadership into a term (DESIGN.md §3, Acquire): checked against our
 * latch node and the epoch node's incarnation, it bumps the epoch (whose new version is the fencing
 * token) and replaces the leader info; for a contender with a generation it also checks
 * {@code <lease>/generation} (G6).
 */
final class AcquiringMulti {
  /** An acquiring multi on {@code session} and the term it grants if ZooKeeper accepts it. */
  record Attempt(long session, String ours, long next, String incarnation, LeaderInfo info,
      List<Op> ops) {
    /** The term granted by the multi that answered {@code results}. */
    Term term(List<OpResult> results) {
      int token = ((OpResult.SetDataResult) results.get(SET_EPOCH)).getStat().getVersion();
      return new Term(new Epoch(next, token, incarnation), session, ours, info);
    }
  }

  /** The index of the op that bumps the epoch. */
  private static final int SET_EPOCH = 2;

  private final LeaseConfig config;
  private final LeasePaths paths;
  private final LeaseAcl acl;
  private final GenerationGuard generation;
  private final java.time.Clock wall;

  AcquiringMulti(LeaseConfig config, LeasePaths paths, LeaseAcl acl, GenerationGuard generation,
      java.time.Clock wall) {
    this.config = config;
    this.paths = paths;
    this.acl = acl;
    this.generation = generation;
    this.wall = wall;
  }

  /**
   * G2 for this session: after an expiry Curator opens a new one, whose negotiated timeout (another
   * server, a changed maxSessionTimeout) may not fit the grace checked at start.
   */
  LeaseTiming timing(ZooKeeper zk, long session) {
    return config.timingFor(Duration.ofMillis(zk.getSessionTimeout()),
        "negotiated by the server for session 0x" + Long.toHexString(session));
  }

  /**
   * The multi that bumps the epoch from {@code current} at {@code epochVersion} of incarnation
   * {@code incarnation} and makes our leader info, replacing {@code leaderStat}'s node if there is
   * one.
   */
  Attempt attempt(String ours, long session, long current, int epochVersion, String incarnation,
      Stat leaderStat) {
    long next = current + 1;
    LeaderInfo info = LeaderInfo.of(next, config.holderId(), config.details(), session,
        wall.instant().toString());
    List<Op> ops = new ArrayList<>();
    // Our latch node still existing means we are still the lowest sequence number: leader.
    ops.add(Op.check(ours, -1));
    // The token is bound to this epoch node: one made again since our read fails here (G3).
    ops.add(Op.check(paths.epoch() + "/" + incarnation, -1));
    ops.add(Op.setData(paths.epoch(), LeaseNodes.bytes(next), epochVersion));
    if (leaderStat != null) {
      ops.add(Op.delete(paths.leader(), leaderStat.getVersion()));
    }
    ops.add(Op.create(paths.leader(), info.toJson(), acl.leaseAcl(), CreateMode.EPHEMERAL));
    if (generation != null) {
      ops.add(generation.check()); // Last: a failure there means a newer generation (G6).
    }
    return new Attempt(session, ours, next, incarnation, info, ops);
  }

  /**
   * A multi built on an epoch hint failed because the hint was stale: the epoch node is another,
   * the epoch moved, or a leader node is left.
   */
  static boolean staleHint(KeeperException e) {
    int failed = Multis.failedOp(e);
    return (failed == SET_EPOCH - 1 && e.code() == Code.NONODE)
        || (failed == SET_EPOCH && e.code() == Code.BADVERSION)
        || (failed == SET_EPOCH + 1 && e.code() == Code.NODEEXISTS);
  }
}
