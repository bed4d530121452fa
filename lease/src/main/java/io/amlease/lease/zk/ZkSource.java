package io.amlease.lease.zk;

import org.apache.zookeeper.ZooKeeper;

/** The lease's current ZooKeeper handle (Curator replaces it after a session expiry). */
@FunctionalInterface
interface ZkSource {
  ZooKeeper get() throws Exception;
}
