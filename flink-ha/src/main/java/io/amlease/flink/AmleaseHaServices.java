package io.amlease.flink;

import io.amlease.flink.leader.AmleaseLeaderElectionDriverFactory;
import io.amlease.flink.leader.AmleaseLeaderRetrievalDriverFactory;
import io.amlease.flink.leader.ComponentPaths;
import io.amlease.flink.leader.LeaderTerm;
import io.amlease.flink.leader.LeaderTerms;
import io.amlease.flink.store.FencedCheckpointRecoveryFactory;
import io.amlease.flink.store.FencedStateHandleStore;
import io.amlease.flink.store.FencedTree;
import io.amlease.lease.LeaseException;
import java.io.IOException;
import java.io.Serializable;
import java.util.List;
import java.util.concurrent.Executor;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.utils.ZKPaths;
import org.apache.flink.api.common.JobID;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.blob.BlobStoreService;
import org.apache.flink.runtime.checkpoint.CheckpointRecoveryFactory;
import org.apache.flink.runtime.highavailability.AbstractHaServices;
import org.apache.flink.runtime.highavailability.FileSystemApplicationResultStore;
import org.apache.flink.runtime.highavailability.FileSystemJobResultStore;
import org.apache.flink.runtime.highavailability.HighAvailabilityServicesUtils;
import org.apache.flink.runtime.jobmanager.ApplicationStore;
import org.apache.flink.runtime.jobmanager.DefaultApplicationStore;
import org.apache.flink.runtime.jobmanager.DefaultExecutionPlanStore;
import org.apache.flink.runtime.jobmanager.ExecutionPlanStore;
import org.apache.flink.runtime.jobmanager.NoOpExecutionPlanStoreWatcher;
import org.apache.flink.runtime.jobmanager.ZooKeeperApplicationStoreUtil;
import org.apache.flink.runtime.jobmanager.ZooKeeperExecutionPlanStoreUtil;
import org.apache.flink.runtime.leaderretrieval.DefaultLeaderRetrievalService;
import org.apache.flink.runtime.leaderretrieval.LeaderRetrievalService;
import org.apache.flink.runtime.persistence.filesystem.FileSystemStateStorageHelper;

/**
 * Flink's HA services on one amlease lease per JobManager process ({@code <path>}): leader
 * election and retrieval, and fenced pointers for checkpoints, execution plans and applications.
 * Under {@code <path>}: the lease ({@code latch}, {@code epoch}, {@code leader}), then
 * {@code components/<id>/connection_info}, {@code jobs/<job id>/checkpoints},
 * {@code jobs/<job id>/checkpoint-id}, {@code execution-plans}, {@code applications}. The state
 * the pointers point to, the blobs, and the job and application results are files under
 * {@code high-availability.storageDir}, as with Flink's ZooKeeper HA: those are not fenced.
 */
public final class AmleaseHaServices extends AbstractHaServices {
  static final String RESOURCE_MANAGER = "resource_manager";
  static final String DISPATCHER = "dispatcher";
  static final String REST_SERVER = "rest_server";

  private final AmleaseHaSettings settings;
  private final CuratorFramework client;
  private final LeaderTerms terms;
  private final ComponentPaths components;

  /** {@code client}: started, authenticated as the lease's owner; closed with the services. */
  public AmleaseHaServices(AmleaseHaSettings settings, CuratorFramework client,
      Configuration configuration, Executor ioExecutor, BlobStoreService blobs,
      LeaderTerms terms) throws IOException {
    super(configuration, new AmleaseLeaderElectionDriverFactory(settings.lease(), client, terms),
        ioExecutor, blobs, FileSystemJobResultStore.fromConfiguration(configuration, ioExecutor),
        FileSystemApplicationResultStore.fromConfiguration(configuration, ioExecutor));
    this.settings = settings;
    this.client = client;
    this.terms = terms;
    this.components = new ComponentPaths(settings.base());
  }

  private String node(String name) {
    return ZKPaths.makePath(settings.base(), name);
  }

  private <T extends Serializable> FileSystemStateStorageHelper<T> files(String prefix)
      throws IOException {
    return new FileSystemStateStorageHelper<>(
        HighAvailabilityServicesUtils.getClusterHighAvailableStoragePath(configuration), prefix);
  }

  @Override
  protected LeaderRetrievalService createLeaderRetrievalService(String componentId) {
    return new DefaultLeaderRetrievalService(
        new AmleaseLeaderRetrievalDriverFactory(client, components, componentId));
  }

  @Override
  protected CheckpointRecoveryFactory createCheckpointRecoveryFactory() {
    return new FencedCheckpointRecoveryFactory(client, node("jobs"), configuration, terms,
        ioExecutor);
  }

  /** No watcher, as with Flink's Kubernetes HA: only the leader writes execution plans. */
  @Override
  protected ExecutionPlanStore createExecutionPlanStore() throws IOException {
    return new DefaultExecutionPlanStore<>(new FencedStateHandleStore<>(client,
        node("execution-plans"), files("submittedExecutionPlan"), terms.current()),
        NoOpExecutionPlanStoreWatcher.INSTANCE, ZooKeeperExecutionPlanStoreUtil.INSTANCE);
  }

  @Override
  protected ApplicationStore createApplicationStore() throws IOException {
    return new DefaultApplicationStore<>(new FencedStateHandleStore<>(client,
        node("applications"), files("submittedApplication"), terms.current()),
        ZooKeeperApplicationStoreUtil.INSTANCE);
  }

  @Override
  protected void internalClose() {
    client.close();
  }

  /**
   * Deletes Flink's nodes, fenced, when the cluster is done; the lease's own nodes stay, because
   * its epoch must never start again from 1 (a fencing token would be reused: DESIGN.md G3).
   * Flink cleans up after its leader components have stopped and the driver has released the
   * lease, so the cleanup takes a term of its own ({@link CleanupTerm}).
   */
  @Override
  protected void internalCleanup() throws Exception {
    try (CleanupTerm t = CleanupTerm.take(settings.lease(), terms)) {
      for (String name : List.of("components", "jobs", "execution-plans", "applications")) {
        FencedTree.delete(client, t.term(), node(name));
      }
    }
  }

  /** A finished job's nodes, by the leader that finished it; refused (Flink retries) otherwise. */
  @Override
  protected void internalCleanupJobData(JobID jobId) throws Exception {
    LeaderTerm t = terms.current().orElseThrow(() -> new LeaseException.NotLeader(
        "cannot clean up job " + jobId + ": this JobManager does not lead"));
    FencedTree.delete(client, t, ZKPaths.makePath(node("jobs"), jobId.toString()));
    FencedTree.delete(client, t, components.component(getLeaderPathForJobManager(jobId)));
  }

  @Override
  protected String getLeaderPathForResourceManager() {
    return RESOURCE_MANAGER;
  }

  @Override
  protected String getLeaderPathForDispatcher() {
    return DISPATCHER;
  }

  @Override
  protected String getLeaderPathForJobManager(JobID jobId) {
    return "job-" + jobId;
  }

  @Override
  protected String getLeaderPathForRestServer() {
    return REST_SERVER;
  }
}
