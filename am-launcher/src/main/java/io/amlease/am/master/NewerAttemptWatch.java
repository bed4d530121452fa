package io.amlease.am.master;

import io.amlease.lease.Lease;
import io.amlease.lease.LeaseException;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.apache.hadoop.yarn.api.records.ApplicationAttemptId;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * G6: looks among the lease's contenders for a newer attempt of this application (YARN only starts
 * attempt N+1 once it gave up on attempt N) and reports the first one seen, once.
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
    executor.scheduleWithFixedDelay(this::check, period.toMillis(), period.toMillis(),
        TimeUnit.MILLISECONDS);
  }

  private void check() {
    if (reported) {
      return;
    }
    newer().ifPresent(other -> {
      reported = true;
      LOG.warn("attempt {} contends for the lease", other);
      onNewer.accept(other);
    });
  }

  /** A contender that is a later attempt of our application, if any. */
  Optional<ApplicationAttemptId> newer() {
    try {
      for (String id : lease.participants()) {
        if (id.startsWith("appattempt_")) {
          ApplicationAttemptId other = ApplicationAttemptId.fromString(id);
          if (other.getApplicationId().equals(self.getApplicationId())
              && other.getAttemptId() > self.getAttemptId()) {
            return Optional.of(other);
          }
        }
      }
    } catch (LeaseException | IllegalArgumentException e) {
      LOG.debug("cannot read the contenders: {}", e.toString());
    }
    return Optional.empty();
  }

  @Override
  public void close() {
    executor.shutdownNow();
  }
}
