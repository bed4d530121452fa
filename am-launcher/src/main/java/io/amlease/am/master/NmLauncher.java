package io.amlease.am.master;

import java.nio.ByteBuffer;
import java.util.Map;
import java.util.function.BiConsumer;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.api.records.Container;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.api.records.ContainerLaunchContext;
import org.apache.hadoop.yarn.api.records.ContainerStatus;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.client.api.async.NMClientAsync;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Starts worker containers through the NodeManagers, and leaves them running when closed. */
final class NmLauncher implements Workers.Launcher {
  private static final Logger LOG = LoggerFactory.getLogger(NmLauncher.class);

  private final NMClientAsync nm;

  /** @param startFailed told when a NodeManager could not start a container */
  NmLauncher(Configuration conf, BiConsumer<ContainerId, Throwable> startFailed) {
    nm = NMClientAsync.createNMClientAsync(new NMClientAsync.AbstractCallbackHandler() {
      @Override public void onContainerStarted(ContainerId id, Map<String, ByteBuffer> data) {
        LOG.info("worker {} started", id);
      }
      @Override public void onContainerStatusReceived(ContainerId id, ContainerStatus status) {}
      @Override public void onContainerStopped(ContainerId id) {}
      @Override public void onStartContainerError(ContainerId id, Throwable t) {
        startFailed.accept(id, t);
      }
      @Override public void onContainerResourceIncreased(ContainerId id, Resource r) {}
      @Override public void onContainerResourceUpdated(ContainerId id, Resource r) {}
      @Override public void onGetContainerStatusError(ContainerId id, Throwable t) {}
      @Override public void onIncreaseContainerResourceError(ContainerId id, Throwable t) {}
      @Override public void onUpdateContainerResourceError(ContainerId id, Throwable t) {}
      @Override public void onStopContainerError(ContainerId id, Throwable t) {}
    });
    nm.init(conf);
    // A lost lease must leave the workers running for the next attempt to adopt.
    nm.getClient().cleanupRunningContainersOnStop(false);
    nm.start();
  }

  @Override
  public void launch(Container c, ContainerLaunchContext ctx) {
    nm.startContainerAsync(c, ctx);
  }

  @Override
  public void close() {
    nm.stop();
  }
}
