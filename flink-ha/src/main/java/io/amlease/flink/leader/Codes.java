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
   * ZooKeeper's answers that say the multi was not applied. Any other failure may have been
   * (a connection lost before the answer, a session closed under a request in flight, which
   * ZooKeeper answers SESSIONEXPIRED, a request timeout), as Flink's own store assumes.
   */
  private static final java.util.Set<Code> NOT_APPLIED = java.util.EnumSet.of(Code.NODEEXISTS,
      Code.NONODE, Code.BADVERSION, Code.NOTEMPTY, Code.NOAUTH, Code.BADARGUMENTS,
      Code.INVALIDACL, Code.AUTHFAILED, Code.SESSIONMOVED, Code.NOTREADONLY);

  /**
   * The write may or may not have been applied. A refusal by the fence is never unknown, nor is
   * one of {@link #NOT_APPLIED}.
   */
  public static boolean outcomeUnknown(LeaseException e) {
    if (e instanceof LeaseException.Fenced || e instanceof LeaseException.NotLeader) {
      return false;
    }
    Code code = of(e);
    return code == null || !NOT_APPLIED.contains(code);
  }

  /** A failure of the connection or session: worth another try, not a reason to give up. */
  public static boolean transientFailure(LeaseException e) {
    if (e instanceof LeaseException.Unavailable) {
      return true;
    }
    for (Throwable t = e.getCause(); t != null; t = t.getCause()) {
      if (t instanceof KeeperException k) {
        return k.code() == Code.CONNECTIONLOSS || k.code() == Code.SESSIONEXPIRED
            || k.code() == Code.OPERATIONTIMEOUT || k.code() == Code.REQUESTTIMEOUT;
      }
    }
    return false;
  }
}
