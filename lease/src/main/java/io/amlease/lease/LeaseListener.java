package io.amlease.lease;

/**
 * Term edges. Called on one lease-owned event thread, in order: {@code granted} then {@code revoked},
 * each exactly once per term. Keep callbacks short; hand long work to another thread.
 */
public interface LeaseListener {

  /** This holder now holds the lease; fenced writes with {@code epoch} are accepted. */
  void granted(Epoch epoch);

  /**
   * The term ended. By the time this is called the lease already refuses fenced writes; the holder must
   * stop acting, then {@link Lease#close()} it (closing also lets a contender take over at once when
   * ZooKeeper is reachable).
   */
  void revoked(Epoch epoch, RevocationReason reason);

  /** The lease cannot campaign at all (bad data in ZooKeeper, access denied). Default: nothing. */
  default void failed(LeaseException cause) {}
}
