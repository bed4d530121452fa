package io.amlease.lease.zk;

import io.amlease.lease.Epoch;
import io.amlease.lease.LeaderInfo;

/**
 * One term of leadership: its epoch and token, the session it was acquired on, our latch node and
 * the leader info we advertise. Its liveness ({@code lastAck}, the deadline) is {@link Liveness}'s.
 */
final class Term {
  final Epoch epoch;
  final long sessionId;
  final String latchPath;
  private volatile LeaderInfo info;

  Term(Epoch epoch, long sessionId, String latchPath, LeaderInfo info) {
    this.epoch = epoch;
    this.sessionId = sessionId;
    this.latchPath = latchPath;
    this.info = info;
  }

  LeaderInfo info() {
    return info;
  }

  void info(LeaderInfo updated) {
    info = updated;
  }
}
