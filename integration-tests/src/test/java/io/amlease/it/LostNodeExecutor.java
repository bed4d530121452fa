package io.amlease.it;

import java.io.IOException;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.server.nodemanager.DefaultContainerExecutor;
import org.apache.hadoop.yarn.server.nodemanager.executor.ContainerSignalContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The NodeManagers' container executor in the integration tests: the default one, except that the
 * containers a test marks as {@linkplain #lose lost} never receive the NodeManager's signals.
 *
 * <p>That is what YARN does to an AM on a NodeManager that is partitioned away or frozen: the RM
 * gives up on the attempt and tells the node to kill the container, but the kill never arrives, and
 * the old AM keeps running next to the new attempt. MiniYARNCluster's NodeManagers live in the test
 * JVM and always get the RM's orders, so the test drops the signal here instead. The process is the
 * real AM, started by the real NodeManager; only the kill is missing.
 */
public final class LostNodeExecutor extends DefaultContainerExecutor {
  private static final Logger LOG = LoggerFactory.getLogger(LostNodeExecutor.class);
  private static final Set<ContainerId> LOST = ConcurrentHashMap.newKeySet();

  /** From now on the NodeManager's signals to {@code container} are dropped. */
  static void lose(ContainerId container) {
    LOST.add(container);
  }

  /** Signals reach {@code container} again (for cleaning up after a test). */
  static void find(ContainerId container) {
    LOST.remove(container);
  }

  @Override
  public boolean signalContainer(ContainerSignalContext ctx) throws IOException {
    ContainerId id = ctx.getContainer().getContainerId();
    if (LOST.contains(id)) {
      LOG.warn("dropping {} to {} (pid {}): its node is lost", ctx.getSignal(), id, ctx.getPid());
      return true;
    }
    return super.signalContainer(ctx);
  }
}
