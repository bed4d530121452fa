package io.amlease.lease;

import java.time.Duration;
import java.util.Optional;

/**
 * A snapshot of a lease, for status pages and tests.
 *
 * @param phase lifecycle phase
 * @param epoch the current (or last) term's epoch
 * @param timeLeft time until the deadline {@code lastAck + grace}; zero when not holding
 * @param lastAckAge time since the send time of the last answered request; null before the first term
 * @param lastAckNanos {@link Clock#nanoTime()} of that send; 0 before the first term
 * @param sessionId the ZooKeeper session of the term (0 when none)
 * @param timing the timing in force (negotiated after connecting)
 * @param lastRevocation why the last term ended, if one did
 */
public record LeaseState(Phase phase, Optional<Epoch> epoch, Duration timeLeft, Duration lastAckAge,
    long lastAckNanos, long sessionId, LeaseTiming timing, Optional<RevocationReason> lastRevocation) {

  public boolean holder() {
    return phase == Phase.HOLDING;
  }

  /**
   * Whether this snapshot holds term {@code e}: holding, in that epoch, its deadline not passed.
   * What a runner asks before it lets its child act; no I/O, so it lags ZooKeeper (G2 allows for it).
   */
  public boolean holds(Epoch e) {
    return holder() && epoch.filter(e::equals).isPresent() && timeLeft.compareTo(Duration.ZERO) > 0;
  }

  /** The time term {@code e} has left, if this snapshot {@link #holds} it. */
  public Optional<Duration> timeLeftIn(Epoch e) {
    return holds(e) ? Optional.of(timeLeft) : Optional.empty();
  }

  /** The lifecycle: LATENT → CAMPAIGNING → HOLDING → REVOKED → CLOSED (or FAILED). */
  public enum Phase { LATENT, CAMPAIGNING, HOLDING, REVOKED, FAILED, CLOSED }
}
