package io.amlease.am.master;

import io.amlease.am.AmSettings;
import io.amlease.lease.Epoch;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.api.records.Container;
import org.apache.hadoop.yarn.api.records.ContainerExitStatus;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.api.records.ContainerLaunchContext;
import org.apache.hadoop.yarn.api.records.ContainerStatus;
import org.apache.hadoop.yarn.api.records.LocalResource;
import org.apache.hadoop.yarn.api.records.Priority;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.client.api.AMRMClient.ContainerRequest;
import org.apache.hadoop.yarn.client.api.async.AMRMClientAsync;
import org.apache.hadoop.yarn.client.api.async.NMClientAsync;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The worker containers: requested, launched and replaced only while this attempt leads; adopted,
 * not relaunched, when a previous attempt started them (keep-containers-across-attempts).
 */
final class Workers implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(Workers.class);

  private static final Priority WORKER_PRIORITY = Priority.newInstance(1);

  private final AmSettings settings;
  private final Map<String, LocalResource> files;
  private final Map<String, String> attemptEnv;
  private final AMRMClientAsync<ContainerRequest> rm;
  private final NMClientAsync nm;
  private final Map<ContainerId, Container> running = new ConcurrentHashMap<>();
  private int pending;
  private volatile long restarts;
  private volatile int adopted;
  private Epoch epoch;
  private boolean stopping;

  /**
   * @param files the shipped files, localized in every worker
   * @param attemptEnv the environment every worker gets besides the epoch (the AM's contract)
   */
  Workers(AmSettings settings, Map<String, LocalResource> files, Map<String, String> attemptEnv,
      AMRMClientAsync<ContainerRequest> rm, Configuration conf) {
    this.settings = settings;
    this.files = Map.copyOf(files);
    this.attemptEnv = Map.copyOf(attemptEnv);
    this.rm = rm;
    this.nm = NMClientAsync.createNMClientAsync(new NMClientAsync.AbstractCallbackHandler() {
      @Override public void onContainerStarted(ContainerId id, Map<String, ByteBuffer> data) {
        LOG.info("worker {} started", id);
      }
      @Override public void onContainerStatusReceived(ContainerId id,
          org.apache.hadoop.yarn.api.records.ContainerStatus status) {}
      @Override public void onContainerStopped(ContainerId id) {}
      @Override public void onStartContainerError(ContainerId id, Throwable t) {
        LOG.warn("worker {} failed to start: {}", id, t.toString());
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

  /** Workers running now (thread-safe, for the status page). */
  int running() {
    return running.size();
  }

  /** Workers that ended by themselves while this attempt led, and were asked for again. */
  long restarts() {
    return restarts;
  }

  /** Workers taken over from previous attempts. */
  int adopted() {
    return adopted;
  }

  /**
   * Takes over the workers a previous attempt started. The RM also hands over that attempt's own AM
   * container while it still believes it runs (its node is lost, or the kill has not landed yet);
   * that one is not a worker, and only the worker priority tells them apart.
   */
  void adopt(List<Container> previous) {
    for (Container c : previous) {
      if (!WORKER_PRIORITY.equals(c.getPriority())) {
        LOG.info("not adopting {} from a previous attempt: priority {} is not a worker's", c.getId(),
            c.getPriority());
        continue;
      }
      running.put(c.getId(), c);
      adopted++;
      LOG.info("adopted worker {} from a previous attempt", c.getId());
    }
  }

  /** This attempt now leads: bring the workers up to the requested number. */
  void lead(Epoch e) {
    epoch = e;
    topUp();
  }

  private void topUp() {
    int missing = settings.workers() - running.size() - pending;
    for (int i = 0; i < missing; i++) {
      rm.addContainerRequest(new ContainerRequest(
          Resource.newInstance(settings.workerMemoryMb(), settings.workerVcores()), null, null,
          WORKER_PRIORITY));
      pending++;
    }
  }

  void allocated(List<Container> containers) {
    for (Container c : containers) {
      if (pending == 0 || epoch == null || stopping) {
        rm.releaseAssignedContainer(c.getId());
        continue;
      }
      pending--;
      rm.removeContainerRequest(new ContainerRequest(c.getResource(), null, null,
          WORKER_PRIORITY));
      running.put(c.getId(), c);
      Map<String, String> env = new java.util.HashMap<>(settings.env());
      env.putAll(attemptEnv);
      env.put("AMLEASE_EPOCH", Long.toString(epoch.value()));
      env.put("AMLEASE_EPOCH_TOKEN", Integer.toString(epoch.token()));
      ContainerLaunchContext ctx = ContainerLaunchContext.newInstance(files, env,
          List.of("bash -c '" + settings.workerCommand().replace("'", "'\\''") + "'"
              + " 1><LOG_DIR>/worker.stdout 2><LOG_DIR>/worker.stderr"), null, null, null);
      nm.startContainerAsync(c, ctx);
    }
  }

  void completed(List<ContainerStatus> statuses) {
    for (ContainerStatus s : statuses) {
      if (running.remove(s.getContainerId()) == null) {
        continue;
      }
      LOG.info("worker {} ended (exit {}, {})", s.getContainerId(), s.getExitStatus(),
          s.getDiagnostics());
      if (!stopping && epoch != null && s.getExitStatus() != ContainerExitStatus.KILLED_BY_APPMASTER) {
        restarts++;
        topUp();
      }
    }
  }

  /** Clean finish: stop every worker (adopted ones included). */
  void stopAll() {
    stopping = true;
    running.values().forEach(c -> nm.stopContainerAsync(c.getId(), c.getNodeId()));
  }

  @Override
  public void close() {
    nm.stop();
  }
}
