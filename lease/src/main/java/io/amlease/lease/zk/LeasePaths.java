package io.amlease.lease.zk;

/** The znodes of one lease (DESIGN.md §3). */
record LeasePaths(String root) {
  String latch() { return root + "/latch"; }
  String epoch() { return root + "/epoch"; }
  String leader() { return root + "/leader"; }
  String generation() { return root + "/generation"; }

  /** True for the lease root and everything below it. */
  boolean covers(String path) {
    return path.equals(root) || path.startsWith(root + "/");
  }
}
