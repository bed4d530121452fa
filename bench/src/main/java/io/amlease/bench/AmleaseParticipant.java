package io.amlease.bench;

import io.amlease.lease.Epoch;
import io.amlease.lease.LeaseConfig;
import io.amlease.lease.LeaseException;
import io.amlease.lease.LeaseListener;
import io.amlease.lease.RevocationReason;
import io.amlease.lease.zk.ZkLease;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;

/**
 * An amlease holder: a {@link ZkLease} with default timing for the given T. A lease runs one term;
 * with {@code rejoin} the holder campaigns again with a fresh lease after each revocation, as
 * {@code bin/amlease hold} under a supervisor would.
 */
final class AmleaseParticipant implements Participant {
  private static final Duration RETRY = Duration.ofMillis(500);

  private final LeaseConfig config;
  private final Timeline timeline;
  private final boolean rejoin;
  private final ExecutorService rejoiner;
  private volatile ZkLease lease;
  private volatile Epoch epoch;
  private volatile boolean closed;

  AmleaseParticipant(String id, String connect, String path, Duration t, Timeline timeline,
      boolean rejoin) {
    this.config = LeaseConfig.builder().connectString(connect).leasePath(path).holderId(id)
        .sessionTimeout(t).connectionTimeout(Duration.ofSeconds(5)).build();
    this.timeline = timeline;
    this.rejoin = rejoin;
    this.rejoiner = Executors.newSingleThreadExecutor(r -> {
      Thread th = new Thread(r, "bench-rejoin-" + id);
      th.setDaemon(true);
      return th;
    });
  }

  /** The timing a holder with this T gets by default (grace, renew interval). */
  static io.amlease.lease.LeaseTiming defaultTiming(Duration t) {
    return LeaseConfig.builder().connectString("unused:1").leasePath("/unused").holderId("x")
        .sessionTimeout(t).build().requestedTiming();
  }

  @Override
  public void start() throws Exception {
    lease = newLease();
    lease.start();
  }

  private ZkLease newLease() {
    return ZkLease.create(config, new LeaseListener() {
      @Override
      public void granted(Epoch e) {
        epoch = e;
        timeline.started(config.holderId(), e.value());
      }

      @Override
      public void revoked(Epoch e, RevocationReason reason) {
        epoch = null;
        timeline.stopped(config.holderId(), e.value());
        if (rejoin && !closed && reason != RevocationReason.RELEASED) {
          rejoiner.execute(AmleaseParticipant.this::campaignAgain);
        }
      }
    });
  }

  private void campaignAgain() {
    lease.close();
    while (!closed) {
      ZkLease next = newLease();
      lease = next;
      try {
        next.start();
        return;
      } catch (LeaseException e) {
        next.close();
        sleep(RETRY);
      }
    }
  }

  @Override
  public boolean acting() {
    return epoch != null;
  }

  @Override
  public int participants() {
    try {
      return lease.participants().size();
    } catch (LeaseException e) {
      return 0;
    }
  }

  @Override
  public boolean recoveredSince(long nanos) {
    var state = lease.state();
    return !state.holder() || state.lastAckNanos() - nanos > 0;
  }

  @Override
  public Optional<Written> write(String path, byte[] data) {
    Epoch e = epoch;
    if (e == null) {
      return Optional.empty();
    }
    try {
      List<OpResult> r = lease.fencedWrite(e, List.of(Op.setData(path, data, -1)));
      return Optional.of(new Written(e.value(),
          ((OpResult.SetDataResult) r.get(0)).getStat().getVersion()));
    } catch (LeaseException ex) {
      return Optional.empty();
    }
  }

  @Override
  public void release() {
    lease.release(Duration.ofSeconds(5));
  }

  @Override
  public void close() {
    closed = true;
    rejoiner.shutdownNow();
    ZkLease l = lease;
    if (l != null) {
      l.close();
    }
  }

  private static void sleep(Duration d) {
    try {
      Thread.sleep(d.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
