package io.amlease.flink.store;

import io.amlease.flink.leader.LeaderTerms;
import java.util.Collection;
import java.util.concurrent.Executor;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.utils.ZKPaths;
import org.apache.flink.api.common.JobID;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.RecoveryClaimMode;
import org.apache.flink.runtime.checkpoint.CheckpointIDCounter;
import org.apache.flink.runtime.checkpoint.CheckpointRecoveryFactory;
import org.apache.flink.runtime.checkpoint.CompletedCheckpoint;
import org.apache.flink.runtime.checkpoint.CompletedCheckpointStore;
import org.apache.flink.runtime.checkpoint.DefaultCompletedCheckpointStore;
import org.apache.flink.runtime.checkpoint.DefaultCompletedCheckpointStoreUtils;
import org.apache.flink.runtime.checkpoint.ZooKeeperCheckpointStoreUtil;
import org.apache.flink.runtime.highavailability.HighAvailabilityServicesUtils;
import org.apache.flink.runtime.persistence.filesystem.FileSystemStateStorageHelper;
import org.apache.flink.runtime.state.SharedStateRegistryFactory;

/**
 * Flink's own completed-checkpoint store and its checkpoint ids, on fenced pointers: a job's
 * checkpoints are files under {@code high-availability.storageDir} and their pointers sit in
 * {@code <jobs>/<job id>/checkpoints}, its counter in {@code <jobs>/<job id>/checkpoint-id}. Both
 * are bound to the term current when the job's JobMaster creates them.
 */
public final class FencedCheckpointRecoveryFactory implements CheckpointRecoveryFactory {
  private final CuratorFramework client;
  private final String jobs;
  private final Configuration configuration;
  private final LeaderTerms terms;
  private final Executor executor;

  public FencedCheckpointRecoveryFactory(CuratorFramework client, String jobs,
      Configuration configuration, LeaderTerms terms, Executor executor) {
    this.client = client;
    this.jobs = jobs;
    this.configuration = configuration;
    this.terms = terms;
    this.executor = executor;
  }

  @Override
  public CompletedCheckpointStore createRecoveredCompletedCheckpointStore(JobID jobId,
      int maxRetained, SharedStateRegistryFactory registries, Executor ioExecutor,
      RecoveryClaimMode claimMode) throws Exception {
    FencedStateHandleStore<CompletedCheckpoint> pointers = new FencedStateHandleStore<>(client,
        ZKPaths.makePath(jobs, jobId.toString(), "checkpoints"),
        new FileSystemStateStorageHelper<>(
            HighAvailabilityServicesUtils.getClusterHighAvailableStoragePath(configuration),
            "completedCheckpoint"),
        terms.current());
    Collection<CompletedCheckpoint> recovered =
        DefaultCompletedCheckpointStoreUtils.retrieveCompletedCheckpoints(pointers,
            ZooKeeperCheckpointStoreUtil.INSTANCE);
    return new DefaultCompletedCheckpointStore<>(maxRetained, pointers,
        ZooKeeperCheckpointStoreUtil.INSTANCE, recovered,
        registries.create(ioExecutor, recovered, claimMode), executor);
  }

  @Override
  public CheckpointIDCounter createCheckpointIDCounter(JobID jobId) {
    return new FencedCheckpointIdCounter(client,
        ZKPaths.makePath(jobs, jobId.toString(), "checkpoint-id"), terms.current());
  }
}
