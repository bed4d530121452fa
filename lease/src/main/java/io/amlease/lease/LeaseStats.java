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
 * many ZooKeeper refused. Updated by the lease's threads, read by anyone; all methods are
 * thread-safe.
 */
public final class LeaseStats {
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

  public synchronized void acquired() {
    acquisitions++;
  }

  public synchronized void revoked(Revocation r) {
    revocations.merge(r.reason(), 1L, Long::sum);
    if (history.size() == HISTORY) {
      history.removeFirst();
    }
    history.addLast(r);
  }

  /** An acquisition attempt failed (lost race, connection loss) and will be retried. */
  public synchronized void acquisitionRetried() {
    acquisitionRetries++;
  }

  /** A renewal ZooKeeper answered, {@code latency} after it was sent. */
  public synchronized void renewed(Duration latency) {
    long n = latency.toNanos();
    renewals++;
    lastRenewNanos = n;
    maxRenewNanos = Math.max(maxRenewNanos, n);
    totalRenewNanos += n;
  }

  /** A renewal that could not be sent or was answered with an error (not a revocation). */
  public synchronized void renewalFailed() {
    renewalFailures++;
  }

  /** A fenced write sent to ZooKeeper; {@code refused} when the epoch check failed. */
  public synchronized void fencedWrite(boolean refused) {
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
