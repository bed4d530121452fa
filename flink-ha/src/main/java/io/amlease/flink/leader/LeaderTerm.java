package io.amlease.flink.leader;

import io.amlease.lease.Epoch;
import io.amlease.lease.Lease;
import io.amlease.lease.LeaseException;
import java.util.List;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.data.ACL;

/**
 * One term of this JobManager's leadership: the lease and the epoch it was granted in. Every write
 * made for the term is fenced by that epoch, so it is refused once the term has ended, here
 * (the lease is revoked) or in ZooKeeper (a newer term exists), whichever comes first (G3).
 */
public record LeaderTerm(Lease lease, Epoch epoch) {

  /**
   * Writes {@code ops} as one {@code multi(check(epoch), ops…)}.
   *
   * @throws LeaseException.NotLeader the term has ended here
   * @throws LeaseException.Fenced ZooKeeper refused: a newer term exists
   * @throws LeaseException any other failure; the cause is ZooKeeper's
   */
  public List<OpResult> write(List<Op> ops) throws LeaseException {
    return lease.fencedWrite(epoch, ops);
  }

  /** Whether the term still lasts here: not revoked, and its deadline not passed. */
  public boolean lasts() {
    io.amlease.lease.LeaseState s = lease.state();
    return s.holder() && s.epoch().map(epoch::equals).orElse(false) && !s.timeLeft().isZero();
  }

  /** The ACL for nodes the term creates: only the lease's owner may change them. */
  public List<ACL> acl() {
    return lease.acl();
  }
}
