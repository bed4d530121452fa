package io.amlease.flink.leader;

import io.amlease.lease.Epoch;
import java.security.SecureRandom;
import java.util.UUID;

/**
 * Flink's leader session id for a term: the epoch in the upper half, random bits in the lower, so
 * that every grant has a new id (Flink fences its RPCs with it) and logs show which term an id
 * belongs to ({@code 00000000-0000-0007-…} was granted in epoch 7).
 */
final class LeaderSessionIds {
  private static final SecureRandom RANDOM = new SecureRandom();

  private LeaderSessionIds() {}

  static UUID of(Epoch epoch) {
    return new UUID(epoch.value(), RANDOM.nextLong());
  }

  /** The epoch an id was granted in. */
  static long epochOf(UUID id) {
    return id.getMostSignificantBits();
  }
}
