package io.amlease.lease.zk;

import java.util.List;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.OpResult;

/** Reading a failed ZooKeeper multi: which op failed. */
final class Multis {
  private Multis() {}

  /**
   * Index of the op that failed, or -1 when the failure was not per-op. Ops before it answer OK,
   * ops after it RUNTIMEINCONSISTENCY.
   */
  static int failedOp(KeeperException e) {
    List<OpResult> results = e.getResults();
    if (results == null) {
      return -1;
    }
    for (int i = 0; i < results.size(); i++) {
      if (results.get(i) instanceof OpResult.ErrorResult err
          && err.getErr() != Code.OK.intValue()
          && err.getErr() != Code.RUNTIMEINCONSISTENCY.intValue()) {
        return i;
      }
    }
    return -1;
  }

  /** How many ops the failed multi had, or -1 when the failure was not per-op. */
  static int size(KeeperException e) {
    return e.getResults() == null ? -1 : e.getResults().size();
  }
}
