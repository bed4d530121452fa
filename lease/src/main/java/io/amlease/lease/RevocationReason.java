package io.amlease.lease;

/** Why a term ended. Each is logged and counted (DESIGN.md §3). */
public enum RevocationReason {
  /** No answered request for {@code grace} since {@code lastAck}: stop before the session can expire. */
  GRACE_EXPIRED,
  /** ZooKeeper reported the session expired or lost, or the client is on a different session. */
  SESSION_LOST,
  /** A renewal saw {@code <lease>/epoch} at another version: someone else acquired. */
  SUPERSEDED,
  /** A fenced write failed its epoch check. */
  FENCED,
  /** The leader latch said we are no longer leader. */
  LATCH_LOST,
  /** A newer attempt of the same YARN application contends (G6). */
  NEWER_ATTEMPT,
  /** The ResourceManager asked us to shut down or no longer knows our attempt (G6). */
  RM_SHUTDOWN,
  /**
   * A reconnect of the term's session negotiated a shorter session timeout (another server's
   * bounds), for which the term's timing breaks G2.
   */
  TIMEOUT_RENEGOTIATED,
  /** The holder released the lease cleanly. */
  RELEASED
}
