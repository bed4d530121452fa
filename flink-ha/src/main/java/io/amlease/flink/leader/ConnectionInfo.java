package io.amlease.flink.leader;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectOutputStream;
import java.io.UncheckedIOException;
import org.apache.flink.runtime.leaderelection.LeaderInformation;
import org.apache.flink.runtime.util.ZooKeeperUtils;

/**
 * A component's leader information as bytes, in the format of Flink's own ZooKeeper HA (the
 * address, then the leader session id, Java-serialized), so that the two can be told apart by
 * path only. Empty information is an empty node.
 */
final class ConnectionInfo {
  private ConnectionInfo() {}

  static byte[] bytes(LeaderInformation info) {
    if (info.isEmpty()) {
      return new byte[0];
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (ObjectOutputStream o = new ObjectOutputStream(out)) {
      o.writeUTF(info.getLeaderAddress());
      o.writeObject(info.getLeaderSessionID());
    } catch (IOException e) {
      throw new UncheckedIOException(e); // In memory: cannot happen.
    }
    return out.toByteArray();
  }

  /** The information in {@code data}; empty for an empty node or bytes that are not one. */
  static LeaderInformation parse(byte[] data) {
    try {
      return ZooKeeperUtils.readLeaderInformation(data);
    } catch (IOException | ClassNotFoundException | ClassCastException e) {
      return LeaderInformation.empty();
    }
  }
}
