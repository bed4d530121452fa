package io.amlease.lease;

import java.time.Duration;
import java.util.List;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.data.ACL;

/**
 * A leader lease on one ZooKeeper path that tolerates disconnects shorter than {@code grace} and ends
 * itself before its session can expire (DESIGN.md G1–G3). A lease runs at most one term: after
 * {@link LeaseListener#revoked} the holder stops acting and closes it; campaign again with a new one.
 */
public interface Lease extends AutoCloseable {

  /**
   * Connects, checks the negotiated session timeout against G2, checks access, and starts campaigning.
   *
   * @throws LeaseException.Unavailable when ZooKeeper is unreachable within the connection timeout
   * @throws LeaseConfigException when the negotiated timeout breaks G2
   * @throws LeaseException.AccessDenied when the lease's ACL does not let these credentials write
   */
  void start() throws LeaseException;

  /** Snapshot of the current state. */
  LeaseState state();

  /** Counters since creation: grants, revocations by reason, renewals, fenced writes. */
  LeaseStats.Snapshot stats();

  /**
   * Writes {@code ops} atomically, only if {@code epoch} is still the lease's current term in
   * ZooKeeper: {@code multi(check(<lease>/epoch, token), ops…)}. Refused locally when this holder is
   * not holding with that epoch or its deadline has passed; a failed check revokes with FENCED.
   *
   * @throws LeaseException.NotLeader refused locally
   * @throws LeaseException.Fenced ZooKeeper refused: the epoch moved on
   * @throws LeaseException other ZooKeeper failures (the write may or may not have happened only
   *     when the cause is a connection loss)
   */
  List<OpResult> fencedWrite(Epoch epoch, List<Op> ops) throws LeaseException;

  /**
   * The fence as ops for a transaction of your own (etcd's {@code Mutex.IsOwner()}):
   * {@code check(<lease>/epoch, token)} and the check of the epoch node's incarnation
   * ({@link io.amlease.lease.zk.EpochGuard}). Put them first in a {@code multi}, on any client:
   * ZooKeeper applies the multi only while {@code epoch} is the lease's current term (G3), and fails
   * it at op 0 or 1 once a newer term exists or the lease was deleted and made again
   * ({@code EpochGuard.refused}). Refused locally like {@link #fencedWrite}. Unlike
   * {@link #fencedWrite}, this lease does not see the answer: on such a failure, stop acting and
   * {@link #revoke} with FENCED. The ops check the epoch, not this holder's deadline (G2): send the
   * multi at once, as {@link #fencedWrite} does.
   *
   * @throws LeaseException.NotLeader not holding with {@code epoch}, or its deadline has passed
   */
  List<Op> guard(Epoch epoch) throws LeaseException.NotLeader;

  /** Replaces the advertised details in {@code <lease>/leader}, as a fenced write. */
  void updateDetails(Epoch epoch, LeaderDetails details) throws LeaseException;

  /** The ACL to give nodes created through {@link #fencedWrite} (restricted when credentials are set). */
  List<ACL> acl();

  /** Ends the term now for {@code reason} (e.g. NEWER_ATTEMPT, RM_SHUTDOWN); no-op when not holding. */
  void revoke(RevocationReason reason);

  /**
   * Clean stop: stops acting, then deletes {@code <lease>/leader} and the latch node in one multi
   * guarded by the epoch so a waiting contender acquires at once (G5). Waits at most {@code timeout}.
   */
  void release(Duration timeout);

  /** Participant ids of the election (the holder first), for G6 checks. */
  List<String> participants() throws LeaseException;

  /** Releases if holding, then closes the ZooKeeper session and all threads. Idempotent. */
  @Override
  void close();
}
