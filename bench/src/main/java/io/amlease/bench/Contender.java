package io.amlease.bench;

import java.time.Duration;
import org.apache.curator.framework.state.SessionConnectionStateErrorPolicy;
import org.apache.curator.framework.state.StandardConnectionStateErrorPolicy;

/** The three leader-election implementations compared, each driven on the same faults. */
enum Contender {
  /** {@code io.amlease.lease.zk.ZkLease} with default timing. */
  AMLEASE("amlease"),
  /** Curator {@code LeaderLatch}, default policy: SUSPENDED ends leadership. */
  CURATOR_DEFAULT("curator-default"),
  /** Curator {@code LeaderLatch} + {@code SessionConnectionStateErrorPolicy} (Flink's tolerate-suspended-connections). */
  CURATOR_SESSION("curator-session");

  private final String label;

  Contender(String label) {
    this.label = label;
  }

  String label() {
    return label;
  }

  static Contender byLabel(String label) {
    for (Contender c : values()) {
      if (c.label.equals(label)) {
        return c;
      }
    }
    throw new IllegalArgumentException("unknown contender '" + label + "'");
  }

  /**
   * A holder named {@code id} on lease path {@code path}, session timeout {@code t}.
   *
   * @param rejoin whether an amlease holder campaigns again after losing a term (Curator latches
   *     always do)
   */
  Participant participant(String id, String connect, String path, Duration t, Timeline timeline,
      boolean rejoin) {
    return switch (this) {
      case AMLEASE -> new AmleaseParticipant(id, connect, path, t, timeline, rejoin);
      case CURATOR_DEFAULT -> new CuratorParticipant(id, connect, path, t,
          new StandardConnectionStateErrorPolicy(), timeline);
      case CURATOR_SESSION -> new CuratorParticipant(id, connect, path, t,
          new SessionConnectionStateErrorPolicy(), timeline);
    };
  }
}
