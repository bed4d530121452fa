package io.amlease.flink.leader;

import io.amlease.lease.LeaseException;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.OpResult;

/** What ZooKeeper answered to a fenced write that failed. */
public final class Codes {
  private Codes() {}

  /**
   * The code of the first of the caller's ops that failed in the multi (ops after it report
   * RUNTIMEINCONSISTENCY), or the exception's own code; null when the fence refused the write
   * ({@link LeaseException.Fenced}, {@link LeaseException.NotLeader}: no op of the caller's was
   * tried) or ZooKeeper did not answer.
   */
  public static Code of(LeaseException e) {
    if (e instanceof LeaseException.Fenced || e instanceof LeaseException.NotLeader
        || !(e.getCause() instanceof KeeperException k)) {
      return null;
    }
    if (k.getResults() != null) {
      for (OpResult r : k.getResults()) {
        if (r instanceof OpResult.ErrorResult err && err.getErr() != Code.OK.intValue()
            && err.getErr() != Code.RUNTIMEINCONSISTENCY.intValue()) {
          return Code.get(err.getErr());
        }
      }
    }
    return k.code();
  }

  /**
   * The write may or may not have been applied: the connection went before the answer came, or
   * the failure was not ZooKeeper's answer at all. A refusal by the fence is never unknown.
   */
  public static boolean outcomeUnknown(LeaseException e) {
    if (e instanceof LeaseException.Fenced || e instanceof LeaseException.NotLeader) {
      return false;
    }
    Code code = of(e);
    return code == null || code == Code.CONNECTIONLOSS || code == Code.OPERATIONTIMEOUT;
  }
}
