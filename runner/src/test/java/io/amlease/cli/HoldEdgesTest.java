package io.amlease.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.amlease.lease.Epoch;
import io.amlease.lease.LeaderDetails;
import io.amlease.lease.Lease;
import io.amlease.lease.LeaseConfig;
import io.amlease.lease.LeaseListener;
import io.amlease.lease.LeaseState;
import io.amlease.lease.LeaseState.Phase;
import io.amlease.lease.LeaseStats;
import io.amlease.lease.LeaseTiming;
import io.amlease.lease.RevocationReason;
import io.amlease.process.ChildProcess;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.data.ACL;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * "Edges in order" for the runner: COMMAND is never started for a term that has already ended,
 * whatever order the lease's events arrive in and however late the revocation's event is. Pure event
 * loop logic, so a scripted lease and a launcher that records what it was asked to start, instead of
 * ZooKeeper and races that would make the bad orderings rare.
 */
class HoldEdgesTest {
  private static final Epoch E1 = new Epoch(1, 0, "i-test");
  private static final LeaseConfig CONFIG = LeaseConfig.builder().connectString("127.0.0.1:1")
      .leasePath("/edges").holderId("edges").stopTimeout(Duration.ofSeconds(1)).build();

  private final List<List<String>> launched = new CopyOnWriteArrayList<>();
  private volatile Runnable whileStarting = () -> { };
  private final HoldCommand hold = new HoldCommand(new PrintStream(new ByteArrayOutputStream()),
      new PrintStream(new ByteArrayOutputStream()), (command, env, stop, term) -> {
        launched.add(command);
        whileStarting.run();
        return ChildProcess.start(command, env, stop, term);
      });
  private final LeaseListener events = hold.listener();

  @Test
  void revocationQueuedBehindTheGrantMeansCommandNeverStarts() throws Exception {
    ScriptedLease lease = new ScriptedLease(state(Phase.REVOKED, Duration.ZERO));
    events.granted(E1);
    events.revoked(E1, RevocationReason.GRACE_EXPIRED);

    assertThat(hold.hold(lease, CONFIG, List.of("true"))).isEqualTo(ExitCodes.LEASE_LOST);
    assertThat(launched).isEmpty();
  }

  @Test
  void revocationBeforeTheGrantMeansCommandNeverStarts() throws Exception {
    // The reverse order the lease must not produce, but did: hold must not trust it not to.
    ScriptedLease lease = new ScriptedLease(state(Phase.REVOKED, Duration.ZERO));
    events.revoked(E1, RevocationReason.SESSION_LOST);
    events.granted(E1);

    assertThat(hold.hold(lease, CONFIG, List.of("true"))).isEqualTo(ExitCodes.LEASE_LOST);
    assertThat(launched).isEmpty();
  }

  @Test
  void grantOfATermTheLeaseAlreadyEndedMeansCommandNeverStarts() throws Exception {
    // The revocation happened, its event is not queued yet: only the lease's state tells.
    ScriptedLease lease = new ScriptedLease(state(Phase.REVOKED, Duration.ZERO));
    events.granted(E1);

    assertThat(hold.hold(lease, CONFIG, List.of("true"))).isEqualTo(ExitCodes.LEASE_LOST);
    assertThat(launched).isEmpty();
  }

  @Test
  void grantWhoseDeadlineHasPassedMeansCommandNeverStarts() throws Exception {
    // Still HOLDING only because the watchdog has not run yet: lastAck + grace is behind us (G2).
    ScriptedLease lease = new ScriptedLease(state(Phase.HOLDING, Duration.ZERO));
    events.granted(E1);

    assertThat(hold.hold(lease, CONFIG, List.of("true"))).isEqualTo(ExitCodes.LEASE_LOST);
    assertThat(launched).isEmpty();
  }

  /**
   * Item 5 of issue 24: the term ends after hold's last look at the lease but before COMMAND is
   * released from its start gate (the reaper's start and the /proc polls take that long). Before
   * the fix COMMAND ran, and was stopped only afterwards.
   */
  @Test
  void aTermThatEndsWhileTheStartGateIsSetUpNeverRunsCommand(@TempDir Path dir) throws Exception {
    ScriptedLease lease = new ScriptedLease(state(Phase.HOLDING, Duration.ofSeconds(10)));
    whileStarting = () -> lease.state = state(Phase.REVOKED, Duration.ZERO);
    events.granted(E1);
    Path ran = dir.resolve("ran");

    assertThat(hold.hold(lease, CONFIG, List.of("sh", "-c", "touch '" + ran + "'")))
        .isEqualTo(ExitCodes.LEASE_LOST);
    assertThat(launched).hasSize(1);
    assertThat(ran).doesNotExist();
    assertThat(lease.released).isFalse();
  }

  @Test
  void grantOfALiveTermStartsCommand() throws Exception {
    ScriptedLease lease = new ScriptedLease(state(Phase.HOLDING, Duration.ofSeconds(10)));
    events.granted(E1);

    assertThat(hold.hold(lease, CONFIG, List.of("sh", "-c", "exit 4"))).isEqualTo(4);
    assertThat(launched).containsExactly(List.of("sh", "-c", "exit 4"));
    assertThat(lease.released).isTrue();
  }

  private static LeaseState state(Phase phase, Duration timeLeft) {
    return new LeaseState(phase, Optional.of(E1), timeLeft, Duration.ZERO, 0, 0,
        new LeaseTiming(Duration.ofSeconds(30), Duration.ofSeconds(20), Duration.ofSeconds(5),
            Duration.ofSeconds(1)),
        phase == Phase.REVOKED ? Optional.of(RevocationReason.GRACE_EXPIRED) : Optional.empty());
  }

  /** A lease whose state is fixed by the test; the events come from the test as well. */
  private static final class ScriptedLease implements Lease {
    volatile LeaseState state;
    volatile boolean released;

    ScriptedLease(LeaseState state) {
      this.state = state;
    }

    @Override
    public void start() {}

    @Override
    public LeaseState state() {
      return state;
    }

    @Override
    public LeaseStats.Snapshot stats() {
      throw new UnsupportedOperationException();
    }

    @Override
    public List<OpResult> fencedWrite(Epoch epoch, List<Op> ops) {
      throw new UnsupportedOperationException();
    }

    @Override
    public List<Op> guard(Epoch epoch) {
      throw new UnsupportedOperationException();
    }

    @Override
    public void updateDetails(Epoch epoch, LeaderDetails details) {
      throw new UnsupportedOperationException();
    }

    @Override
    public List<ACL> acl() {
      return List.of();
    }

    @Override
    public void revoke(RevocationReason reason) {}

    @Override
    public void release(Duration timeout) {
      released = true;
    }

    @Override
    public List<String> participants() {
      return List.of("edges");
    }

    @Override
    public void close() {}
  }
}
