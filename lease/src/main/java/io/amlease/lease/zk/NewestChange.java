package io.amlease.lease.zk;

/**
 * The newest change of one znode a reader has passed on, by the node's {@code mzxid}. Leader
 * information only changes through epoch-fenced multis, so in ZooKeeper's order the epoch never
 * goes down; but a reader whose new session lands on a server behind the one it read before would
 * read an older node. Readers (the {@code leader} command, {@code leader --watch}, Flink's
 * retrieval driver) admit each read here first and drop what is older, so that they never report
 * an older leader than one they already reported (G3). Thread-safe.
 */
public final class NewestChange {
  private long newest = -1;
  private int skipped;

  /**
   * Whether a read of the node as changed at {@code mzxid} is no older than what was passed on;
   * if so, it becomes the newest. An older one is counted as skipped.
   */
  public synchronized boolean admit(long mzxid) {
    if (mzxid < newest) {
      skipped++;
      return false;
    }
    newest = mzxid;
    return true;
  }

  /** The newest mzxid admitted, or -1 before the first. */
  public synchronized long newest() {
    return newest;
  }

  /** How many reads were refused as older than one admitted. */
  public synchronized int skipped() {
    return skipped;
  }
}
