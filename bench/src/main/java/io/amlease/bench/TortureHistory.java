package io.amlease.bench;

import java.util.List;

/**
 * What one contender recorded in one torture trial, on the {@link System#nanoTime()} axis.
 *
 * @param originNanos when the trial's faults began: descriptions give times relative to it
 * @param actors every process of every COMMAND tree, with the span in which it surely acted
 * @param terms every term a holder began, with when it began and ended
 * @param leaderVersions each version of {@code L/leader} seen (amlease only), with its epoch
 * @param writes each write to the data node that ZooKeeper accepted, with the writer's term and
 *     the version it produced (ZooKeeper's commit order)
 * @param pauses each SIGSTOP … SIGCONT of a holder process (inner bounds)
 * @param leaseDeletions the zxid of each deletion of the whole lease (the torture's
 *     {@code deleteall} fault), in order
 */
record TortureHistory(long originNanos, List<Actor> actors, List<Term> terms,
    List<History.LeaderVersion> leaderVersions, List<History.Write> writes,
    List<History.Pause> pauses, List<Long> leaseDeletions) {

  TortureHistory(long originNanos, List<Actor> actors, List<Term> terms,
      List<History.LeaderVersion> leaderVersions, List<History.Write> writes,
      List<History.Pause> pauses) {
    this(originNanos, actors, terms, leaderVersions, writes, pauses, List.of());
  }

  TortureHistory {
    actors = List.copyOf(actors);
    terms = List.copyOf(terms);
    leaderVersions = List.copyOf(leaderVersions);
    writes = List.copyOf(writes);
    pauses = List.copyOf(pauses);
    leaseDeletions = List.copyOf(leaseDeletions);
  }

  /** The same history, with the whole lease deleted at each of {@code zxids}. */
  TortureHistory withLeaseDeletions(List<Long> zxids) {
    return new TortureHistory(originNanos, actors, terms, leaderVersions, writes, pauses, zxids);
  }

  /**
   * Process {@code role} of the COMMAND of term {@code term}, which holder process {@code holder}
   * started, acted at every instant of {@code [fromNanos, toNanos]}: inner bounds, its stamps'
   * resolution already taken off (see {@link ActorLogs}).
   */
  record Actor(String holder, long term, String role, long fromNanos, long toNanos) {}

  /**
   * Holder process {@code holder} held term {@code term} from {@code startNanos} until
   * {@code endNanos}: its revocation (amlease's {@code revoked} event, a latch's {@code notLeader})
   * or its death (SIGKILL), whichever came first; {@link #OPEN} when it still held at the trial's end.
   */
  record Term(String holder, long term, long startNanos, long endNanos) {
    static final long OPEN = Long.MAX_VALUE;

    boolean ended() {
      return endNanos != OPEN;
    }
  }
}
