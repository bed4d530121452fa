package io.amlease.flink.store;

import io.amlease.flink.leader.Codes;
import io.amlease.flink.leader.LeaderTerm;
import io.amlease.lease.LeaseException;
import java.util.List;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.Op;

/** Deletes a subtree, leaves first, each node by a fenced write of the term. */
public final class FencedTree {
  private FencedTree() {}

  public static void delete(CuratorFramework client, LeaderTerm term, String path)
      throws Exception {
    List<String> children;
    try {
      children = client.getChildren().forPath(path);
    } catch (KeeperException.NoNodeException e) {
      return;
    }
    for (String child : children) {
      delete(client, term, ZKPaths.makePath(path, child));
    }
    try {
      term.write(List.of(Op.delete(path, -1)));
    } catch (LeaseException e) {
      if (Codes.of(e) != Code.NONODE) {
        throw e;
      }
    }
  }
}
