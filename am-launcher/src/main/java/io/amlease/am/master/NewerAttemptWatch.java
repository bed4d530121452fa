package io.amlease.am.master;

import io.amlease.lease.Lease;
import io.amlease.lease.LeaseException;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.apache.hadoop.yarn.api.records.ApplicationAttemptId;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * G6: looks among the lease's contenders for a newer attempt of this application (YARN only starts
 * attempt N+1 once it gave up on attempt N): periodically, reporting the first one seen once, and on
 * demand, before the AM acts on a grant.
 *
 * <p>The periodic look alone leaves a window: a newer attempt that joins just before this attempt's
 * grant is seen only up to a period later, after the master would have started. Hence {@link
 * #check}: a read issued after the grant, on the same session, sees every contender that joined
 * before the grant (ZooKeeper orders writes and never shows a client older state than its own
 * writes).
 *
 * <p>Reading the contenders is a ZooKeeper read that Curator retries for up to a minute while
 * ZooKeeper is unreachable, so it runs on its own thread, one read at a time: on the AM's event
 * thread it would hold up the revocation that must stop the master by the deadline (G2).
 */
final class NewerAttemptWatch implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(NewerAttemptWatch.class);

  private final ApplicationAttemptId self;
  private final Lease lease;
  private final Consumer<ApplicationAttemptId> onNewer;
  private final ScheduledExecutorService executor = Executors.newSingleThreadScheduledExecutor(r -> {
    Thread t = new Thread(r, "amlease-newer-attempt-watch");
    t.setDaemon(true);
    return t;
  });
  private volatile boolean reported;

  NewerAttemptWatch(ApplicationAttemptId self, Lease lease, Consumer<ApplicationAttemptId> onNewer) {
    this.self = self;
    this.lease = lease;
    this.onNewer = onNewer;
  }

  /** Checks every {@code period}, the next check starting a period after the last one ended. */
  void start(Duration period) {
    executor.scheduleWithFixedDelay(this::poll, period.toMillis(), period.toMillis(),
        TimeUnit.MILLISECONDS);
  }

  private void poll() {
    if (reported) {
      return;
    }
    Optional<ApplicationAttemptId> found;
    try {
      found = newer();
    } catch (LeaseException e) {
      LOG.debug("cannot read the contenders: {}", e.toString());
      return;
    }
    found.ifPresent(other -> {
      reported = true;
      LOG.warn("attempt {} contends for the lease", other);
      onNewer.accept(other);
    });
  }

  /**
   * One look at the contenders, {@code delay} from now, on the watch's thread. Completes with the
   * newer attempt if there is one, or exceptionally with the {@link LeaseException} when the
   * contenders could not be read: "unknown" must not pass for "none".
   */
  CompletableFuture<Optional<ApplicationAttemptId>> check(Duration delay) {
    CompletableFuture<Optional<ApplicationAttemptId>> result = new CompletableFuture<>();
    try {
      executor.schedule(() -> {
        try {
          result.complete(newer());
        } catch (LeaseException | RuntimeException e) {
          result.completeExceptionally(e);
        }
      }, delay.toNanos(), TimeUnit.NANOSECONDS);
    } catch (RejectedExecutionException e) {
      result.completeExceptionally(e);
    }
    return result;
  }

  /** A contender that is a later attempt of our application, if any. */
  private Optional<ApplicationAttemptId> newer() throws LeaseException {
    for (String id : lease.participants()) {
      if (!id.startsWith("appattempt_")) {
        continue;
      }
      ApplicationAttemptId other;
      try {
        other = ApplicationAttemptId.fromString(id);
      } catch (IllegalArgumentException e) {
        continue;
      }
      if (other.getApplicationId().equals(self.getApplicationId())
          && other.getAttemptId() > self.getAttemptId()) {
        return Optional.of(other);
      }
    }
    return Optional.empty();
  }

  @Override
  public void close() {
    executor.shutdownNow();
  }
}
