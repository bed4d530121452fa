package io.amlease.lease.zk;

import io.amlease.lease.Epoch;
import io.amlease.lease.LeaderInfo;
import java.time.Duration;

/**
 * One term of leadership and its deadline. {@code lastAck} is the send time of the newest request
 * ZooKeeper answered on the term's session: the server heard from the session no earlier than that,
 * so it cannot expire the session before {@code lastAck + T}; stopping at {@code lastAck + grace}
 * (grace < T) is therefore safe whatever the connection state says.
 */
final class Term {
  final Epoch epoch;
  final long sessionId;
  final String latchPath;
  private final long graceNanos;
  private volatile long lastAck;
  private volatile LeaderInfo info;
  private volatile boolean epochWatched;

  Term(Epoch epoch, long sessionId, String latchPath, LeaderInfo info, Duration grace,
      long sentNanos) {
    this.epoch = epoch;
    this.sessionId = sessionId;
    this.latchPath = latchPath;
    this.info = info;
    this.graceNanos = grace.toNanos();
    this.lastAck = sentNanos;
  }

  /** Records an answered request sent at {@code sentNanos}; answers may arrive out of order. */
  synchronized void ack(long sentNanos) {
    if (sentNanos - lastAck > 0) {
      lastAck = sentNanos;
    }
  }

  long lastAck() {
    return lastAck;
  }

  long deadline() {
    return lastAck + graceNanos;
  }

  boolean expired(long nowNanos) {
    return nowNanos - deadline() >= 0;
  }

  /** Whether the watch on the epoch node is set for this term (it detects supersession). */
  boolean epochWatched() {
    return epochWatched;
  }

  void epochWatched(boolean set) {
    epochWatched = set;
  }

  LeaderInfo info() {
    return info;
  }

  void info(LeaderInfo updated) {
    info = updated;
  }
}
