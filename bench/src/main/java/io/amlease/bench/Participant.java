package io.amlease.bench;

import java.util.Optional;

/**
 * One holder of one contender (amlease or a Curator latch), as the benchmark drives it. The seam
 * between the scenarios and the three implementations; edges go to the holder's {@link Timeline}.
 */
interface Participant extends AutoCloseable {

  /** Connects and starts campaigning. */
  void start() throws Exception;

  /** Whether this holder currently believes it leads (and so acts). */
  boolean acting();

  /** How many holders the election currently sees (0 when it cannot tell). */
  int participants();

  /** Whether the holder has heard from ZooKeeper since {@code nanos} (or has nothing left to lose). */
  boolean recoveredSince(long nanos);

  /**
   * Writes {@code data} to {@code path} the way an acting holder of this kind would: fenced by the
   * epoch for amlease, a plain {@code setData} for a Curator latch holder.
   *
   * @return the epoch the write was made in and the data node's version after it, or empty when
   *     refused or failed
   */
  Optional<Written> write(String path, byte[] data);

  /** An accepted write: the writer's epoch and the version of the data node it produced. */
  record Written(long epoch, int version) {}

  /** Steps down cleanly so that a waiting contender can take over at once. */
  void release();

  /** Stops everything; a holder still acting simply disappears (its session closes or expires). */
  @Override
  void close();
}
