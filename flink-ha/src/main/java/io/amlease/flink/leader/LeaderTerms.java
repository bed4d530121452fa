package io.amlease.flink.leader;

import java.util.Optional;

/**
 * The term this JobManager process holds now, if any: set by the election driver before it tells
 * Flink of a grant, cleared before it tells Flink of a revocation, read by the stores when Flink
 * creates them for a new leader session. One per HA services instance.
 */
public final class LeaderTerms {
  private final java.util.concurrent.atomic.AtomicReference<LeaderTerm> current =
      new java.util.concurrent.atomic.AtomicReference<>();

  void granted(LeaderTerm term) {
    current.set(term);
  }

  /**
   * Term {@code term} has ended; a newer one (a later driver on the same services) is left alone.
   */
  void ended(LeaderTerm term) {
    current.compareAndSet(term, null);
  }

  /** The term held now; empty between terms and on a JobManager that does not lead. */
  public Optional<LeaderTerm> current() {
    return Optional.ofNullable(current.get());
  }
}
