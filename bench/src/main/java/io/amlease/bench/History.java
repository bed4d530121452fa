package io.amlease.bench;

import java.util.List;

/**
 * What one randomized trial recorded: who acted when, every version of the leader node, and every
 * write that ZooKeeper accepted from an acting holder.
 *
 * @param intervals acting intervals (from the holders' callbacks)
 * @param leaderVersions each version of {@code L/leader} seen, with the epoch it named
 * @param writes each accepted write to the shared data node, with the writer's epoch and the version
 *     the write produced (ZooKeeper's commit order)
 */
record History(List<Interval> intervals, List<LeaderVersion> leaderVersions, List<Write> writes) {

  /** One holder acting in one epoch, from {@code startNanos} to {@code stopNanos}. */
  record Interval(String holder, long epoch, long startNanos, long stopNanos) {}

  /** A version of the leader node: {@code mzxid} orders versions, {@code epoch} is its content. */
  record LeaderVersion(long mzxid, long epoch) {}

  /** An accepted write by {@code holder} in {@code epoch} that left the data node at {@code version}. */
  record Write(String holder, long epoch, int version) {}
}
