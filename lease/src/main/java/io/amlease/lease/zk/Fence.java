package io.amlease.lease.zk;

import io.amlease.lease.Epoch;
import io.amlease.lease.LeaderDetails;
import io.amlease.lease.LeaderInfo;
import io.amlease.lease.LeaseException;
import io.amlease.lease.LeaseObserver;
import io.amlease.lease.RevocationReason;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.ZooKeeper;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * G3: writes that ZooKeeper accepts only while the term's epoch is current. Every write is a multi
 * that begins with {@link #guard(Term)}, {@code check(<lease>/epoch, token)} and the check of the
 * epoch node's incarnation ({@link EpochGuard}): a superseded holder's write fails in ZooKeeper even
 * when its own clock could not tell (a pause), even after the lease was deleted and made again, and
 * the failure revokes it (FENCED).
 */
final class Fence {
  private static final Logger LOG = LoggerFactory.getLogger(ZkLease.class);

  /** The term a write is for, and its liveness. */
  record Held(Term term, Liveness liveness) {}

  /** The current term if it is {@code epoch} and its deadline has not passed. */
  interface Holding {
    Held held(Epoch epoch) throws LeaseException.NotLeader;
  }

  /** Ends term {@code t}, if it is still current. */
  interface Revoker {
    void revoke(Term t, RevocationReason reason, String detail);
  }

  /** What the fence needs from its lease. */
  record Owner(Holding holding, ZkSource zk, Revoker revoker) {}

  private final LeasePaths paths;
  private final LeaseObserver observer;
  private final io.amlease.lease.Clock clock;
  private final Owner owner;

  Fence(LeasePaths paths, LeaseObserver observer, io.amlease.lease.Clock clock, Owner owner) {
    this.paths = paths;
    this.observer = observer;
    this.clock = clock;
    this.owner = owner;
  }

  /** The epoch checks a write of term {@code t} starts with. */
  List<Op> guard(Term t) {
    return EpochGuard.ops(paths.root(), t.epoch);
  }

  /** The epoch checks of {@code epoch}, for a caller's own multi; refused locally like a write. */
  List<Op> guard(Epoch epoch) throws LeaseException.NotLeader {
    return guard(owner.holding().held(epoch).term());
  }

  List<OpResult> write(Epoch epoch, List<Op> ops) throws LeaseException {
    Held held = owner.holding().held(epoch);
    Term t = held.term();
    List<Op> all = new ArrayList<>(ops.size() + EpochGuard.OPS);
    all.addAll(guard(t));
    all.addAll(ops);
    long sent = clock.nanoTime();
    try {
      ZooKeeper zk = owner.zk().get();
      if (zk.getSessionId() != t.sessionId) {
        owner.revoker().revoke(t, RevocationReason.SESSION_LOST, "fenced write: the client is on another "
            + "session");
        throw new LeaseException.NotLeader("the session of epoch " + epoch + " is gone");
      }
      List<OpResult> results = zk.multi(all);
      observer.fencedWrite(t.epoch, t.sessionId, false, null);
      held.liveness().ack(sent, zk); // A write is ordered by the quorum leader: it proves the session.
      return results.subList(EpochGuard.OPS, results.size());
    } catch (KeeperException e) {
      if (EpochGuard.refused(e)) {
        String detail = EpochGuard.incarnationGone(e)
            ? paths.epoch() + " is not the node epoch " + t.epoch.value() + " was acquired on (its "
                + "incarnation " + t.epoch.incarnation() + " is gone: the lease was deleted)"
            : paths.epoch() + " is no longer at our token " + t.epoch.token();
        owner.revoker().revoke(t, RevocationReason.FENCED, "fenced write refused: " + detail);
        observer.fencedWrite(t.epoch, t.sessionId, true, detail);
        throw new LeaseException.Fenced("epoch " + t.epoch.value() + " was superseded; write "
            + "refused by ZooKeeper", e);
      }
      if (e.code() == Code.SESSIONEXPIRED) {
        owner.revoker().revoke(t, RevocationReason.SESSION_LOST, "fenced write: session expired");
      }
      throw new LeaseException("fenced write failed: " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new LeaseException("interrupted during fenced write", e);
    } catch (LeaseException e) {
      throw e;
    } catch (Exception e) {
      throw new LeaseException("fenced write failed: " + e, e);
    }
  }

  /** Replaces the advertised details in {@code <lease>/leader}, as a fenced write. */
  void updateDetails(Epoch epoch, LeaderDetails details) throws LeaseException {
    Term t = owner.holding().held(epoch).term();
    LeaderInfo old = t.info();
    LeaderInfo updated = new LeaderInfo(old.epoch(), old.holder(), details.host(), details.port(),
        details.urls(), details.applicationId(), details.attemptId(), details.containerId(),
        old.sessionId(), old.acquiredAt());
    write(epoch, List.of(Op.setData(paths.leader(), updated.toJson(), -1)));
    t.info(updated);
  }

  /**
   * Sends the clean release of term {@code t}, revoked locally a moment ago: deletes the leader info
   * and our latch node in one multi guarded by the epoch, so that a waiting contender acquires at
   * once (G5). Does not wait: the answer completes the future.
   */
  CompletableFuture<Code> sendRelease(Term t) {
    List<Op> ops = new ArrayList<>(guard(t));
    ops.add(Op.delete(paths.leader(), -1));
    ops.add(Op.delete(t.latchPath, -1));
    CompletableFuture<Code> done = new CompletableFuture<>();
    try {
      owner.zk().get().multi(ops, (rc, path, ctx, results) -> done.complete(Code.get(rc)), null);
    } catch (Exception e) {
      done.completeExceptionally(e);
    }
    return done;
  }

  /** Waits at most {@code timeout} for a release; closing the session removes what is ours anyway. */
  static void awaitRelease(CompletableFuture<Code> release, Duration timeout) {
    try {
      Code code = release.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
      if (code != Code.OK) {
        LOG.info("release multi answered {}; closing the session removes what is ours", code);
      }
    } catch (Exception e) {
      LOG.info("release did not complete ({}); closing the session removes what is ours",
          e.toString());
    }
  }
}
