package io.amlease.flink.leader;

import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.apache.flink.runtime.leaderelection.LeaderElectionDriver;
import org.apache.flink.runtime.leaderelection.LeaderInformation;
import org.apache.flink.runtime.leaderelection.LeaderInformationRegister;

/**
 * A driver listener that records every callback in order, for tests to wait on (Flink's
 * {@code TestingLeaderElectionListener} in 2.3.0 fails its own timed {@code await} with a
 * ClassCastException, so it can wait only without a bound).
 */
final class Events implements LeaderElectionDriver.Listener {
  sealed interface Event permits Granted, Revoked, Changed, Error {}

  record Granted(UUID session) implements Event {}

  record Revoked() implements Event {}

  record Changed(String componentId, LeaderInformation info) implements Event {}

  record Error(Throwable cause) implements Event {}

  private final BlockingQueue<Event> queue = new LinkedBlockingQueue<>();

  @Override
  public void onGrantLeadership(UUID session) {
    queue.add(new Granted(session));
  }

  @Override
  public void onRevokeLeadership() {
    queue.add(new Revoked());
  }

  @Override
  public void onLeaderInformationChange(String componentId, LeaderInformation info) {
    queue.add(new Changed(componentId, info));
  }

  @Override
  public void onLeaderInformationChange(LeaderInformationRegister register) {
    register.getRegisteredComponentIds().forEach(
        id -> queue.add(new Changed(id, register.forComponentIdOrEmpty(id))));
  }

  @Override
  public void onError(Throwable t) {
    queue.add(new Error(t));
  }

  /**
   * The next grant or revocation within {@code within}, in the order the driver reported them
   * (information changes are skipped); empty if none came.
   */
  Optional<Event> nextEdge(Duration within) throws InterruptedException {
    return next(e -> e instanceof Granted || e instanceof Revoked, within);
  }

  /** The next event of {@code type} within {@code within}, skipping others; empty if none came. */
  <T extends Event> Optional<T> next(Class<T> type, Duration within) throws InterruptedException {
    return next(type::isInstance, within).map(type::cast);
  }

  /** Fails on an error unless errors are what is asked for. */
  private Optional<Event> next(java.util.function.Predicate<Event> wanted, Duration within)
      throws InterruptedException {
    long deadline = System.nanoTime() + within.toNanos();
    while (true) {
      long left = deadline - System.nanoTime();
      Event e = left <= 0 ? null : queue.poll(left, TimeUnit.NANOSECONDS);
      if (e == null) {
        return Optional.empty();
      }
      if (e instanceof Error err && !wanted.test(e)) {
        throw new AssertionError("the driver reported an error", err.cause());
      }
      if (wanted.test(e)) {
        return Optional.of(e);
      }
    }
  }
}
