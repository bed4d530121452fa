package io.amlease.flink.leader;

import org.apache.curator.utils.ZKPaths;

/**
 * Where Flink's leader information lives under a cluster's lease path {@code base}:
 * {@code base/components/<component id>/connection_info}, one node per component (Flink's own
 * ZooKeeper layout, moved under the lease so that the lease's ACL covers it). The lease itself
 * uses {@code base/latch}, {@code base/epoch} and {@code base/leader}.
 */
public final class ComponentPaths {
  static final String COMPONENTS = "components";
  static final String CONNECTION_INFO = "connection_info";

  private final String base;

  public ComponentPaths(String base) {
    this.base = base;
  }

  /** The parent of every component's node. */
  public String components() {
    return ZKPaths.makePath(base, COMPONENTS);
  }

  /** The node of {@code componentId}. */
  public String component(String componentId) {
    if (componentId.isEmpty() || componentId.contains("/")) {
      throw new IllegalArgumentException("a component id is one path element, not '"
          + componentId + "'");
    }
    return ZKPaths.makePath(components(), componentId);
  }

  /** The node holding {@code componentId}'s leader address and session id. */
  public String connectionInfo(String componentId) {
    return ZKPaths.makePath(component(componentId), CONNECTION_INFO);
  }

  /** The component a connection-info path belongs to, or null for any other path. */
  String componentOf(String path) {
    String prefix = components() + "/";
    String suffix = "/" + CONNECTION_INFO;
    if (!path.startsWith(prefix) || !path.endsWith(suffix)) {
      return null;
    }
    String id = path.substring(prefix.length(), path.length() - suffix.length());
    return id.isEmpty() || id.contains("/") ? null : id;
  }
}
