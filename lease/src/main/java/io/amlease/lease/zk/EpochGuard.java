package io.amlease.lease.zk;

import io.amlease.lease.Epoch;
import java.util.List;
import java.util.UUID;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;

/**
 * The ops that fence a write with a term's token (G3), for the holder and for any process that has
 * the term's epoch, token and incarnation ({@code AMLEASE_EPOCH_TOKEN} and
 * {@code AMLEASE_EPOCH_INCARNATION} in a command's environment): the first two ops of every fenced
 * multi are {@code check(<lease>/epoch, token)} and {@code check(<lease>/epoch/<incarnation>, -1)}.
 * The version check refuses a superseded term; the second refuses a term of an earlier epoch node,
 * whose versions a re-created node would reuse (an operator's {@code deleteall} of the lease).
 */
public final class EpochGuard {
  /** Both guard ops; a failure of either means the term is over. */
  public static final int OPS = 2;

  private EpochGuard() {}

  /** The ops a fenced multi of term {@code epoch} on lease {@code leasePath} begins with. */
  public static List<Op> ops(String leasePath, Epoch epoch) {
    LeasePaths paths = new LeasePaths(leasePath);
    return List.of(Op.check(paths.epoch(), epoch.token()),
        Op.check(paths.epoch() + "/" + epoch.incarnation(), -1));
  }

  /**
   * Whether ZooKeeper refused a multi that began with {@link #ops} because of them: the epoch moved
   * on, or the epoch node is not the one the term was acquired on.
   */
  public static boolean refused(KeeperException e) {
    int failed = Multis.failedOp(e);
    return failed >= 0 && failed < OPS;
  }

  /** Whether the incarnation node itself is gone: the lease was deleted whole (or damaged). */
  static boolean incarnationGone(KeeperException e) {
    return Multis.failedOp(e) == 1 && e.code() == KeeperException.Code.NONODE;
  }

  /** A name no incarnation had before. */
  static String newIncarnation() {
    return "i-" + UUID.randomUUID();
  }
}
