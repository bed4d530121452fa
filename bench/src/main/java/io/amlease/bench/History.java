package io.amlease.bench;

import java.util.List;

/**
 * What one randomized trial recorded: who acted when, every version of the leader node, every write
 * that ZooKeeper accepted from an acting holder, and when a holder's process was stopped.
 *
 * @param intervals acting intervals (from the holders' callbacks)
 * @param leaderVersions each version of {@code L/leader} seen, with the epoch it named
 * @param writes each accepted write to the shared data node, with the writer's epoch and the version
 *     the write produced (ZooKeeper's commit order)
 * @param pauses each time a holder's process was stopped (SIGSTOP … SIGCONT)
 */
record History(List<Interval> intervals, List<LeaderVersion> leaderVersions, List<Write> writes,
    List<Pause> pauses) {

  /** A history without process pauses. */
  History(List<Interval> intervals, List<LeaderVersion> leaderVersions, List<Write> writes) {
    this(intervals, leaderVersions, writes, List.of());
  }

  /** One holder acting in one epoch, from {@code startNanos} to {@code stopNanos}. */
  record Interval(String holder, long epoch, long startNanos, long stopNanos) {}

  /** A version of the leader node: {@code mzxid} orders versions, {@code epoch} is its content. */
  record LeaderVersion(long mzxid, long epoch) {}

  /** An accepted write by {@code holder} in {@code epoch} that left the data node at {@code version}. */
  record Write(String holder, long epoch, int version) {}

  /**
   * {@code holder}'s process was stopped from {@code fromNanos} (after SIGSTOP was sent) to
   * {@code toNanos} (before SIGCONT was sent): inner bounds, so it surely did nothing in between.
   * {@code wholeTree}: its children were stopped with it (as in a VM freeze), not only the runner.
   */
  record Pause(String holder, long fromNanos, long toNanos, boolean wholeTree) {
    Pause(String holder, long fromNanos, long toNanos) {
      this(holder, fromNanos, toNanos, false);
    }
  }
}
