package io.amlease.bench;

import java.time.Duration;
import java.util.List;
import org.apache.curator.framework.state.SessionConnectionStateErrorPolicy;
import org.apache.curator.framework.state.StandardConnectionStateErrorPolicy;

/** The leader-election implementations compared, each driven on the same faults: the lease
 * against Curator's latch, or (bench --flink) the Flink plugin against Flink's own ZooKeeper HA. */
enum Contender {
  /** {@code io.amlease.lease.zk.ZkLease} with default timing. */
  AMLEASE("amlease"),
  /** Curator {@code LeaderLatch}, default policy: SUSPENDED ends leadership. */
  CURATOR_DEFAULT("curator-default"),
  /** Curator {@code LeaderLatch} + {@code SessionConnectionStateErrorPolicy} (Flink's tolerate-suspended-connections). */
  CURATOR_SESSION("curator-session"),
  /** The amlease Flink plugin's leader election driver ({@code bench --flink}). */
  FLINK_AMLEASE("flink-amlease"),
  /** Flink's own ZooKeeper leader election driver, Flink's default settings. */
  FLINK_ZK("flink-zk"),
  /** Flink's ZooKeeper driver with {@code tolerate-suspended-connections: true} (FLINK-10052). */
  FLINK_ZK_TOLERANT("flink-zk-tolerant");

  /** The default comparison: the lease against Curator's latch. */
  static final List<Contender> CURATOR = List.of(AMLEASE, CURATOR_DEFAULT, CURATOR_SESSION);
  /** {@code --flink}: the plugin against Flink's own ZooKeeper HA, without and with tolerance. */
  static final List<Contender> FLINK = List.of(FLINK_AMLEASE, FLINK_ZK, FLINK_ZK_TOLERANT);

  private final String label;

  Contender(String label) {
    this.label = label;
  }

  String label() {
    return label;
  }

  /** Whether its terms carry the lease's epochs (the others' are numbered by the bench). */
  boolean hasEpochs() {
    return this == AMLEASE || this == FLINK_AMLEASE;
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
      case FLINK_AMLEASE -> new FlinkAmleaseParticipant(id, connect, path, t, timeline);
      case FLINK_ZK -> new FlinkZkParticipant(id, connect, path, t, false, timeline);
      case FLINK_ZK_TOLERANT -> new FlinkZkParticipant(id, connect, path, t, true, timeline);
    };
  }
}
