package io.amlease.lease;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * What a lease has done since it was created, for status pages and metrics: terms granted,
 * revocations by reason (with a short history), renewals and their latency, fenced writes and how
 * many ZooKeeper refused. An observer of the lease, updated by its threads and read by anyone;
 * all methods are thread-safe.
 */
public final class LeaseStats implements LeaseObserver {
  /** How many past revocations {@link Snapshot#history()} keeps. */
  public static final int HISTORY = 20;

  /** One ended term: when (wall clock, for people), which epoch, why. */
  public record Revocation(Instant at, long epoch, RevocationReason reason, String detail) {}

  /** A consistent copy of the counters. Durations are zero until the first renewal. */
  public record Snapshot(long acquisitions, Map<RevocationReason, Long> revocations,
      long renewals, long renewalFailures, Duration lastRenewLatency, Duration maxRenewLatency,
      Duration totalRenewLatency, long fencedWrites, long fencedWriteFailures,
      List<Revocation> history, long acquisitionRetries) {

    public long revocations(RevocationReason reason) {
      return revocations.getOrDefault(reason, 0L);
    }
  }

  private long acquisitions;
  private final EnumMap<RevocationReason, Long> revocations = new EnumMap<>(RevocationReason.class);
  private long renewals;
  private long renewalFailures;
  private long lastRenewNanos;
  private long maxRenewNanos;
  private long totalRenewNanos;
  private long fencedWrites;
  private long fencedWriteFailures;
  private long acquisitionRetries;
  private final ArrayDeque<Revocation> history = new ArrayDeque<>();

  private final java.time.Clock wall;

  /** Stats that stamp revocations with {@code wall} (for people: they read the history). */
  public LeaseStats(java.time.Clock wall) {
    this.wall = wall;
  }

  @Override
  public synchronized void granted(Epoch epoch, long sessionId) {
    acquisitions++;
  }

  @Override
  public synchronized void revoked(Epoch epoch, long sessionId, RevocationReason reason,
      String detail) {
    revocations.merge(reason, 1L, Long::sum);
    if (history.size() == HISTORY) {
      history.removeFirst();
    }
    history.addLast(new Revocation(wall.instant(), epoch.value(), reason, detail));
  }

  @Override
  public synchronized void acquisitionRetried(String why, Duration delay, int failuresInARow) {
    acquisitionRetries++;
  }

  @Override
  public synchronized void renewed(Duration latency) {
    long n = latency.toNanos();
    renewals++;
    lastRenewNanos = n;
    maxRenewNanos = Math.max(maxRenewNanos, n);
    totalRenewNanos += n;
  }

  @Override
  public synchronized void renewalFailed(Epoch epoch, long sessionId, String detail) {
    renewalFailures++;
  }

  @Override
  public synchronized void fencedWrite(Epoch epoch, long sessionId, boolean refused,
      String detail) {
    fencedWrites++;
    if (refused) {
      fencedWriteFailures++;
    }
  }

  public synchronized Snapshot snapshot() {
    return new Snapshot(acquisitions, Collections.unmodifiableMap(new EnumMap<>(revocations)),
        renewals, renewalFailures, Duration.ofNanos(lastRenewNanos), Duration.ofNanos(maxRenewNanos),
        Duration.ofNanos(totalRenewNanos), fencedWrites, fencedWriteFailures, List.copyOf(history),
        acquisitionRetries);
  }
}
